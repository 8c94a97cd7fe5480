package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// evidenceFields are the fields of a proposal's evidence (backend.Evidence), failure_summary
// first: a plain string sent as evidence is taken as it.
var evidenceFields = []string{"failure_summary", "user_feedback_excerpt", "corrected_output_hint"}

// proposeTool is propose_playbook_patch: agents suggest playbook fixes for a person to review
// instead of overwriting playbooks. Its schema stays small; the errors teach the op shapes.
func proposeTool() ToolSpec {
	kinds := make([]string, len(backend.ProposalKinds))
	for i, k := range backend.ProposalKinds {
		kinds[i] = string(k)
	}
	return ToolSpec{Name: "propose_playbook_patch", Tier: TierRuntime, Access: Write,
		Description: "After a user correction, suggest a playbook fix for review. " +
			"ops: [{op:add_item,section,text}], amend_item, remove_item, set_triggers, rewrite_body.",
		Params: []Param{
			{Name: "kind", Type: TString, Required: true, Enum: kinds},
			{Name: "playbook_id", Type: TString},
			{Name: "ops", Type: TObjects},
			{Name: "new_playbook", Type: TObjOrStr, Desc: "create: title, body, triggers"},
			{Name: "rationale", Type: TString, Required: true},
			{Name: "evidence", Type: TTextObject, Props: evidenceFields},
			{Name: "supersedes", Type: TStrings},
			{Name: "signal_ids", Type: TStrings},
		},
		run: runPropose}
}

func runPropose(ctx context.Context, c *call) (any, error) {
	in := core.ProposeInput{Kind: backend.ProposalKind(c.str("kind")), PlaybookID: c.str("playbook_id"),
		Rationale: c.str("rationale"), Supersedes: c.strs("supersedes"), SignalIDs: c.strs("signal_ids")}
	if raw := c.raw("ops"); raw != nil {
		var list []json.RawMessage
		_ = json.Unmarshal(raw, &list) // decodeObjects checked the shape
		in.Ops = make([]backend.PlaybookOp, len(list))
		for i, r := range list {
			if err := strictDecode(c.spec, fmt.Sprintf("ops[%d]", i), r, &in.Ops[i],
				"op, section, anchor, text, triggers"); err != nil {
				return nil, err
			}
		}
	}
	if raw := c.raw("new_playbook"); raw != nil {
		in.NewPlaybook = &backend.PlaybookInput{}
		if err := strictDecode(c.spec, "new_playbook", raw, in.NewPlaybook,
			"title, body, triggers, exec, skill"); err != nil {
			return nil, err
		}
	}
	if raw := c.raw("evidence"); raw != nil {
		if err := strictDecode(c.spec, "evidence", raw, &in.Evidence, strings.Join(evidenceFields, ", ")); err != nil {
			return nil, err
		}
	}
	return c.svc.ProposePlaybookPatch(ctx, c.sessionID, in)
}

// strictDecode decodes one nested object, refusing fields it does not know and naming the
// ones it accepts.
func strictDecode(spec *ToolSpec, field string, raw json.RawMessage, into any, accepted string) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return argError(spec, field, "%s must be an object with %s (%s)", field, accepted, decodeProblem(err))
	}
	return nil
}

// decodeProblem says what was wrong without echoing values.
func decodeProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("%s must be %s", te.Field, te.Type)
	}
	return err.Error()
}
