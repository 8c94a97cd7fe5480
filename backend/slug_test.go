package backend_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/agent-deck/agent-deck/backend"
)

func TestSlugify(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"lowercases", "OpenAI", "openai"},
		{"spaces become one underscore", "OpenAI   API Key", "openai_api_key"},
		{"punctuation collapses", "GitHub -- (PAT)!", "github_pat"},
		{"trims separators", "  __Stripe__  ", "stripe"},
		{"keeps digits", "S3 bucket 2", "s3_bucket_2"},
		{"folds accents", "Café Crème", "cafe_creme"},
		{"ligatures split", "Œuvre ﬁle", "oeuvre_file"},
		{"more ligatures", "ﬀ ﬂ ﬃ ĳ ǆ", "ff_fl_ffi_ij_dz"},
		{"full-width letters and digits", "ＧｉｔＨｕｂ　Ｔｏｋｅｎ ２", "github_token_2"},
		{"letters built on letters that do not decompose", "ǣ ǿ", "ae_o"},
		{"compatibility forms", "ℌ① ²", "h1_2"},
		{"underscores collapse", "a__b___c", "a_b_c"},
		{"non latin only", "日本語", ""},
		{"empty", "", ""},
		{"bounded", strings.Repeat("abcdefghij ", 10), "abcdefghij_abcdefghij_abcdefghij_abcdefghij_abcd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := backend.Slugify(tt.in)
			if got != tt.want {
				t.Errorf("Slugify(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if len(got) > 48 || strings.HasSuffix(got, "_") {
				t.Errorf("Slugify(%q) = %q: longer than 48 or ends in _", tt.in, got)
			}
		})
	}
}

func TestDeriveIDs(t *testing.T) {
	tests := []struct {
		name, label, credID, env, pbID string
	}{
		{"api key label", "OpenAI API Key", "cred_openai_api_key", "OPENAI_API_KEY", "pb_openai_api_key"},
		{"plain name", "Stripe", "cred_stripe", "STRIPE_API_KEY", "pb_stripe"},
		{"token label", "GitHub Token", "cred_github_token", "GITHUB_TOKEN", "pb_github_token"},
		{"ends in api", "Linear API", "cred_linear_api", "LINEAR_API_KEY", "pb_linear_api"},
		{"secret word", "AWS Secret", "cred_aws_secret", "AWS_SECRET", "pb_aws_secret"},
		{"password", "DB password", "cred_db_password", "DB_PASSWORD", "pb_db_password"},
		{"secret word alone", "Key", "cred_key", "KEY_API_KEY", "pb_key"},
		{"leading digit", "1Password", "cred_1password", "_1PASSWORD_API_KEY", "pb_1password"},
		{"leading digit plain", "42 things", "cred_42_things", "_42_THINGS_API_KEY", "pb_42_things"},
		{"punctuation", "Deploy: prod (blue/green)", "cred_deploy_prod_blue_green",
			"DEPLOY_PROD_BLUE_GREEN_API_KEY", "pb_deploy_prod_blue_green"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := backend.DeriveCredentialID(tt.label); got != tt.credID {
				t.Errorf("DeriveCredentialID(%q) = %q, want %q", tt.label, got, tt.credID)
			}
			if got := backend.DeriveEnvName(tt.label); got != tt.env {
				t.Errorf("DeriveEnvName(%q) = %q, want %q", tt.label, got, tt.env)
			}
			if got := backend.DerivePlaybookID(tt.label); got != tt.pbID {
				t.Errorf("DerivePlaybookID(%q) = %q, want %q", tt.label, got, tt.pbID)
			}
		})
	}
}

func TestDeriveIDsWithoutSlug(t *testing.T) {
	id := backend.DeriveCredentialID("日本語")
	if id == "cred_" || !strings.HasPrefix(id, "cred_x") {
		t.Errorf("DeriveCredentialID(non-latin) = %q, want a stable hashed id", id)
	}
	if again := backend.DeriveCredentialID("日本語"); again != id {
		t.Errorf("derived id not stable: %q then %q", id, again)
	}
	env := backend.DeriveEnvName("日本語")
	if !strings.HasSuffix(env, "_API_KEY") || strings.Trim(env, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != "" {
		t.Errorf("DeriveEnvName(non-latin) = %q, want an upper-case env name", env)
	}
}

// TestNewUUIDIsCanonicalV4 reads NewUUID's ids back with the UUID library: version 4, the RFC
// variant, the canonical lowercase spelling, and no two alike.
func TestNewUUIDIsCanonicalV4(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id, err := backend.NewUUID()
		if err != nil {
			t.Fatal(err)
		}
		u, err := uuid.Parse(id)
		if err != nil {
			t.Fatalf("NewUUID() = %q: %v", id, err)
		}
		if u.Version() != 4 || u.Variant() != uuid.RFC4122 || u.String() != id {
			t.Fatalf("NewUUID() = %q: version %d, variant %s, canonical %q", id, u.Version(), u.Variant(), u.String())
		}
		if seen[id] {
			t.Fatalf("NewUUID() repeated %q", id)
		}
		seen[id] = true
	}
}
