package tests

import "testing"

// attack is one hole an attacker tried, kept closed: a regression test against the real server,
// real PostgreSQL and, where it matters, a real downstream peer. Each surface keeps its attacks in
// one table (attack_<surface>_test.go), so the next hole found is one more row.
type attack struct {
	// name says what the attacker tries, as the subtest name.
	name string
	// run performs the attack and fails the test if it succeeds.
	run func(t *testing.T)
}

// runAttacks runs a surface's table, one subtest per row.
func runAttacks(t *testing.T, rows []attack) {
	t.Helper()
	seen := map[string]bool{}
	for _, a := range rows {
		if seen[a.name] {
			t.Fatalf("two attacks are named %q", a.name)
		}
		seen[a.name] = true
		t.Run(a.name, a.run)
	}
}
