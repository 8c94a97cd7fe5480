package backend

import "testing"

// TestOAuthStateFollowsTheChangeFeed: a sign-in made on another replica reaches this one as a
// change of its service; the state this replica's snapshots show is dropped then (and when the
// feed restarts), so the next snapshot reads the store instead of showing the old word.
func TestOAuthStateFollowsTheChangeFeed(t *testing.T) {
	c := newCaches()
	c.oauth.note("svc-a", OAuthStateConnected)
	c.oauth.note("svc-b", OAuthStateConnected)
	c.apply(Change{Table: "services", ID: "svc-a"})
	if _, ok := c.oauth.m.Load("svc-a"); ok {
		t.Error("a change of svc-a kept its sign-in state")
	}
	if c.oauth.word("svc-b") != OAuthStateConnected {
		t.Error("a change of svc-a dropped svc-b's state")
	}
	c.apply(Change{Table: "credentials", ID: "cred"})
	if c.oauth.word("svc-b") != OAuthStateConnected {
		t.Error("a credential change dropped a sign-in state")
	}
	c.setLive(true)
	if _, ok := c.oauth.m.Load("svc-b"); ok {
		t.Error("a feed restart kept a sign-in state it may have missed changes of")
	}
}
