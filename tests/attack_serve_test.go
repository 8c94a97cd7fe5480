package tests

import "testing"

// Attacks on the serve process: data home, embedded PostgreSQL, local children, files on disk.
func TestAttacksServe(t *testing.T) {
	shared := &sharedServe{parent: t}
	runAttacks(t, []attack{
		{"start a server or a replica with another secret key", attackWrongKeyRefused},
		{"move a sealed secret into another row and call its service", attackMovedCiphertext},
		{"second serve on a locked home takes over its database", attackSecondServeOnLockedHome(shared)},
		{"secret files readable by others load silently", attackSecretFilesOpenToOthers},
		{"killing the embedded postgres takes the deck down for good", attackKillEmbeddedPostgres(shared)},
		{"a local server's grandchild outlives a killed serve", attackOrphanOutlivesKilledServe},
		{"a root serve opens up the home and every parent", attackRootServeOpensUpHome(shared)},
		{"read runtime profiles from a server started without --pprof", attackPprofOffByDefault},
		{"read runtime profiles with an agent token or none", attackPprofAgentToken},
		{"a killed serve its parent has not reaped keeps the cluster as its live owner", attackZombieServeOwnsCluster},
	})
}
