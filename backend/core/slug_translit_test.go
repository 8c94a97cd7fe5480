package core_test

import (
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestSlugTransliterates holds issue 10's slug item: Latin letters with diacritics, and those that
// do not decompose (ł, đ, ø, ß, æ, œ, þ), become their ASCII spelling in derived ids and env names
// instead of vanishing ("Łódź Škoda" gave OD_KODA).
func TestSlugTransliterates(t *testing.T) {
	tests := []struct {
		name, label, credID, env string
	}{
		{"polish and czech", "Łódź Škoda", "cred_lodz_skoda", "LODZ_SKODA_API_KEY"},
		{"letters that do not decompose", "Łł Øø Đđ ß Ææ Œœ Þ", "cred_ll_oo_dd_ss_aeae_oeoe_th", "LL_OO_DD_SS_AEAE_OEOE_TH_API_KEY"},
		{"romanian comma below", "Ștefan Țară Token", "cred_stefan_tara_token", "STEFAN_TARA_TOKEN"},
		{"vietnamese", "Nguyễn Đức", "cred_nguyen_duc", "NGUYEN_DUC_API_KEY"},
		{"turkish dotted capital", "İstanbul Key", "cred_istanbul_key", "ISTANBUL_API_KEY"},
		{"decomposed accents", "Cafe\u0301 Cre\u0300me", "cred_cafe_creme", "CAFE_CREME_API_KEY"},
		{"latin-1 still folds", "Café Crème", "cred_cafe_creme", "CAFE_CREME_API_KEY"},
		{"ligatures", "Œuvre ﬁle", "cred_oeuvre_file", "OEUVRE_FILE_API_KEY"},
		{"full-width", "ＯｐｅｎＡＩ ＡＰＩ Ｋｅｙ", "cred_openai_api_key", "OPENAI_API_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := backend.DeriveCredentialID(tt.label); got != tt.credID {
				t.Errorf("DeriveCredentialID(%q) = %q, want %q", tt.label, got, tt.credID)
			}
			if got := backend.DeriveEnvName(tt.label); got != tt.env {
				t.Errorf("DeriveEnvName(%q) = %q, want %q", tt.label, got, tt.env)
			}
		})
	}
}

// TestSlugStoredNamesKeep: a stored credential keeps its id and env name when its label changes
// to one that now transliterates differently.
func TestSlugStoredNamesKeep(t *testing.T) {
	f := newCoreFixture(t)
	c := coreMust[backend.Credential](t)(f.svc.CreateCredential(f.admin, core.CredentialInput{Label: "Plain", Value: "v"}))
	label := "Łódź Škoda"
	got := coreMust[backend.Credential](t)(f.svc.UpdateCredential(f.admin, c.ID, core.CredentialPatch{Label: &label}))
	if got.ID != c.ID || got.EnvName != c.EnvName {
		t.Errorf("after relabel: id %q env %q, want %q %q", got.ID, got.EnvName, c.ID, c.EnvName)
	}
}
