package core

import (
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

// TestOAuthStateFollowsTheChangeFeed: a sign-in made on another replica reaches this one as a
// change of its service; the state this replica's snapshots show is marked stale then (and when
// the feed restarts), so the next snapshot reads the store instead of keeping the old word. Until
// that read, the last word is still shown: a snapshot rendered while the notice lands (the notice
// of this replica's own sign-in, arriving after the state was noted and read back) never shows a
// signed-in service without its word.
func TestOAuthStateFollowsTheChangeFeed(t *testing.T) {
	c := newCaches()
	c.oauth.note("svc-a", backend.OAuthStateConnected)
	c.oauth.note("svc-b", backend.OAuthStateConnected)
	c.apply(backend.Change{Table: "services", ID: "svc-a"})
	if c.oauth.known("svc-a") {
		t.Error("a change of svc-a kept its sign-in state as current")
	}
	if c.oauth.word("svc-a") != backend.OAuthStateConnected {
		t.Error("a change of svc-a blanked its word before the state was read again")
	}
	if !c.oauth.known("svc-b") || c.oauth.word("svc-b") != backend.OAuthStateConnected {
		t.Error("a change of svc-a touched svc-b's state")
	}
	c.apply(backend.Change{Table: "credentials", ID: "cred"})
	if !c.oauth.known("svc-b") {
		t.Error("a credential change marked a sign-in state stale")
	}
	c.oauth.note("svc-a", backend.OAuthStateNeedsSignIn) // read again
	if !c.oauth.known("svc-a") || c.oauth.word("svc-a") != backend.OAuthStateNeedsSignIn {
		t.Error("a state read again is not current")
	}
	c.setLive(true)
	if c.oauth.known("svc-a") || c.oauth.known("svc-b") {
		t.Error("a feed restart kept a sign-in state it may have missed changes of")
	}
}
