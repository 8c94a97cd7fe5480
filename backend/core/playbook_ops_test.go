package core_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

const opsBody = `Deploy the app to staging.

## Steps

- build the image
- push it
- run migrate

## Notes

Mind the cache.

` + "```" + `
## not a section
` + "```" + `
`

func TestApplyPlaybookOps(t *testing.T) {
	cur := core.PlaybookContent{Body: opsBody, Triggers: []string{"deploy"}}
	tests := []struct {
		name     string
		ops      []backend.PlaybookOp
		body     string // "" means unchanged
		triggers []string
	}{
		{"add_item appends after the last item, section matched case-insensitively",
			[]backend.PlaybookOp{{Op: "add_item", Section: "steps", Text: "- smoke test"}},
			strings.Replace(opsBody, "- run migrate\n", "- run migrate\n- smoke test\n", 1), nil},
		{"add_item into a section without a list starts one after its text",
			[]backend.PlaybookOp{{Op: "add_item", Section: "## Notes", Text: "check logs"}},
			opsBody + "\n- check logs\n", nil},
		{"add_item creates a missing section at the end",
			[]backend.PlaybookOp{{Op: "add_item", Section: "Rollback", Text: "redeploy previous tag"}},
			opsBody + "\n## Rollback\n\n- redeploy previous tag\n", nil},
		{"amend_item replaces the anchored line, keeping its marker",
			[]backend.PlaybookOp{{Op: "amend_item", Section: "Steps", Anchor: "- push it", Text: "push it to the registry"}},
			strings.Replace(opsBody, "- push it\n", "- push it to the registry\n", 1), nil},
		{"remove_item deletes the anchored line",
			[]backend.PlaybookOp{{Op: "remove_item", Section: "STEPS", Anchor: "run migrate"}},
			strings.Replace(opsBody, "- run migrate\n", "", 1), nil},
		{"set_triggers replaces and cleans the triggers",
			[]backend.PlaybookOp{{Op: "set_triggers", Triggers: []string{" ship  it ", "deploy"}}},
			"", []string{"ship it", "deploy"}},
		{"rewrite_body replaces the whole body",
			[]backend.PlaybookOp{{Op: "rewrite_body", Text: "All new.\n"}}, "All new.\n", nil},
		{"ops apply in order: a later op sees an earlier one's item",
			[]backend.PlaybookOp{
				{Op: "add_item", Section: "Steps", Text: "tag release"},
				{Op: "amend_item", Section: "Steps", Anchor: "tag release", Text: "tag the release"},
			},
			strings.Replace(opsBody, "- run migrate\n", "- run migrate\n- tag the release\n", 1), nil},
		{"numbered lists continue their numbering",
			[]backend.PlaybookOp{{Op: "add_item", Section: "List", Text: "three"}},
			"", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := cur
			if tc.name == "numbered lists continue their numbering" {
				in = core.PlaybookContent{Body: "## List\n\n1. one\n2. two\n"}
				tc.body = "## List\n\n1. one\n2. two\n3. three\n"
			}
			got, err := core.ApplyPlaybookOps(in, tc.ops)
			if err != nil {
				t.Fatalf("ApplyPlaybookOps: %v", err)
			}
			want := core.PlaybookContent{Body: tc.body, Triggers: tc.triggers}
			if want.Body == "" {
				want.Body = in.Body
			}
			if want.Triggers == nil {
				want.Triggers = in.Triggers
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyPlaybookOpsRefusals(t *testing.T) {
	cur := core.PlaybookContent{Body: opsBody, Triggers: []string{"deploy"}}
	tests := []struct {
		name     string
		ops      []backend.PlaybookOp
		code     backend.Code
		mentions []string
	}{
		{"no ops", nil, backend.CodeInvalidArgument, []string{"ops", "add_item"}},
		{"unknown op lists the ops", []backend.PlaybookOp{{Op: "append"}},
			backend.CodeInvalidArgument, []string{"ops[0].op", "amend_item", "rewrite_body"}},
		{"missing section", []backend.PlaybookOp{{Op: "add_item", Text: "x"}},
			backend.CodeInvalidArgument, []string{"ops[0].section"}},
		{"missing text", []backend.PlaybookOp{{Op: "add_item", Section: "Steps"}},
			backend.CodeInvalidArgument, []string{"ops[0].text"}},
		{"multi-line item", []backend.PlaybookOp{{Op: "add_item", Section: "Steps", Text: "a\nb"}},
			backend.CodeInvalidArgument, []string{"ops[0].text", "one line"}},
		{"missing anchor", []backend.PlaybookOp{{Op: "remove_item", Section: "Steps"}},
			backend.CodeInvalidArgument, []string{"ops[0].anchor"}},
		{"amend in a missing section names the sections there are",
			[]backend.PlaybookOp{{Op: "amend_item", Section: "Rollback", Anchor: "x", Text: "y"}},
			backend.CodePatchConflict, []string{`"Rollback"`, "Steps, Notes"}},
		{"a heading inside a code fence is no section",
			[]backend.PlaybookOp{{Op: "remove_item", Section: "not a section", Anchor: "x"}},
			backend.CodePatchConflict, []string{"not a section", "Steps, Notes"}},
		{"remove a missing item names the items there are",
			[]backend.PlaybookOp{{Op: "remove_item", Section: "Steps", Anchor: "deploy"}},
			backend.CodePatchConflict, []string{`"deploy"`, "build the image, push it, run migrate"}},
		{"all or nothing: a later conflict undoes an earlier op",
			[]backend.PlaybookOp{
				{Op: "add_item", Section: "Steps", Text: "ok"},
				{Op: "amend_item", Section: "Steps", Anchor: "gone", Text: "y"},
			},
			backend.CodePatchConflict, []string{"ops[1]", `"gone"`}},
		{"empty triggers", []backend.PlaybookOp{{Op: "set_triggers"}},
			backend.CodeInvalidArgument, []string{"ops[0].triggers"}},
		{"empty rewrite", []backend.PlaybookOp{{Op: "rewrite_body", Text: "  "}},
			backend.CodeInvalidArgument, []string{"ops[0].text"}},
		{"amend to the same text changes nothing",
			[]backend.PlaybookOp{{Op: "amend_item", Section: "Steps", Anchor: "push it", Text: "push it"}},
			backend.CodePatchNoChange, []string{"as it is"}},
		{"same triggers change nothing",
			[]backend.PlaybookOp{{Op: "set_triggers", Triggers: []string{"deploy"}}},
			backend.CodePatchNoChange, nil},
		{"add then remove changes nothing",
			[]backend.PlaybookOp{
				{Op: "add_item", Section: "Steps", Text: "tmp"},
				{Op: "remove_item", Section: "Steps", Anchor: "tmp"},
			},
			backend.CodePatchNoChange, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := core.ApplyPlaybookOps(cur, tc.ops)
			if code := backend.ErrorCode(err); code != tc.code {
				t.Fatalf("code = %q (%v), want %q", code, err, tc.code)
			}
			if diff := cmp.Diff(cur, got); diff != "" {
				t.Errorf("a refused patch changed the content (-want +got):\n%s", diff)
			}
			for _, m := range tc.mentions {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %q", err, m)
				}
			}
		})
	}
}

// TestApplyPlaybookOpsHeadingLevels holds issue 27 item 3: a section is a heading of any level,
// so an op on "Rotate" finds "# Rotate" instead of creating a second section.
func TestApplyPlaybookOpsHeadingLevels(t *testing.T) {
	tests := []struct {
		name string
		body string
		op   backend.PlaybookOp
		want string
	}{
		{"the only heading is a title", "# Rotate\n\n- revoke the old key\n",
			backend.PlaybookOp{Op: "add_item", Section: "Rotate", Text: "store the new key"},
			"# Rotate\n\n- revoke the old key\n- store the new key\n"},
		{"the section named with its marker", "# Rotate\n\n- revoke the old key\n",
			backend.PlaybookOp{Op: "add_item", Section: "# rotate", Text: "store the new key"},
			"# Rotate\n\n- revoke the old key\n- store the new key\n"},
		{"a level-3 section ends at the next heading of its level", "## Steps\n\n### Build\n\n- make\n\n### Ship\n\n- push\n",
			backend.PlaybookOp{Op: "add_item", Section: "Build", Text: "test"},
			"## Steps\n\n### Build\n\n- make\n- test\n\n### Ship\n\n- push\n"},
		{"a section holds its subsections", "# Rotate\n\n## Before\n\n- warn the team\n",
			backend.PlaybookOp{Op: "amend_item", Section: "Rotate", Anchor: "warn the team", Text: "warn the team in #ops"},
			"# Rotate\n\n## Before\n\n- warn the team in #ops\n"},
		{"closing hashes are not part of the name", "## Rotate ##\n\n- a\n",
			backend.PlaybookOp{Op: "remove_item", Section: "Rotate", Anchor: "a"},
			"## Rotate ##\n\n"},
		{"a hash without a space is no heading", "#hashtag\n\n- a\n",
			backend.PlaybookOp{Op: "add_item", Section: "hashtag", Text: "b"},
			"#hashtag\n\n- a\n\n## hashtag\n\n- b\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := core.ApplyPlaybookOps(core.PlaybookContent{Body: tc.body}, []backend.PlaybookOp{tc.op})
			if err != nil {
				t.Fatalf("ApplyPlaybookOps: %v", err)
			}
			if diff := cmp.Diff(tc.want, got.Body); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}
