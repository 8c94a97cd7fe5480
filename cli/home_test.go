package cli

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agent-deck/agent-deck/backend/secret"
)

// TestGeneratedKeyIsKeptOnlyWhenAccepted holds issue 27 item 16: a key generated on a first start
// becomes <home>/secret.key only once the database accepted it; dropped, it leaves nothing; a
// key an interrupted start left waiting is tried again rather than replaced.
func TestGeneratedKeyIsKeptOnlyWhenAccepted(t *testing.T) {
	t.Run("dropped", func(t *testing.T) {
		home := t.TempDir()
		_, pending, err := loadSecretKey(home, "")
		if err != nil || pending == nil {
			t.Fatalf("loadSecretKey: %v, pending %v", err, pending)
		}
		if _, err := os.Stat(filepath.Join(home, secretKeyFile)); err == nil {
			t.Error("the key file exists before the database accepted the key")
		}
		pending.drop()
		if left, _ := filepath.Glob(filepath.Join(home, "*")); len(left) != 0 {
			t.Errorf("a dropped key left %v", left)
		}
	})
	t.Run("kept", func(t *testing.T) {
		home := t.TempDir()
		key, pending, err := loadSecretKey(home, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := pending.keep(); err != nil {
			t.Fatal(err)
		}
		pending.drop() // after keep: nothing to remove
		again, next, err := loadSecretKey(home, "")
		if err != nil || next != nil || !slices.Equal(again, key) {
			t.Errorf("next start read %x (pending %v, %v), want the kept key", again, next, err)
		}
	})
	t.Run("left waiting by an interrupted start", func(t *testing.T) {
		home := t.TempDir()
		key, err := secret.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		waiting := filepath.Join(home, secretKeyFile+".new")
		if err := os.WriteFile(waiting, []byte(base64.StdEncoding.EncodeToString(key)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		got, pending, err := loadSecretKey(home, "")
		if err != nil || pending == nil || !slices.Equal(got, key) {
			t.Errorf("loadSecretKey = %x, %v, %v; want the waiting key", got, pending, err)
		}
	})
}
