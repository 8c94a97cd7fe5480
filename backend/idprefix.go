package backend

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

// MinIDPrefix is the shortest start of an id that stands for the whole id, wherever an id is
// taken (REST, MCP and the CLI alike): lists print ids cut to 8 characters, and fewer than 4
// would pick a row by accident.
const MinIDPrefix = 4

// IDKind names a kind of row whose id may be given by a unique prefix.
type IDKind string

// The kinds of rows addressed by id.
const (
	IDDeck       IDKind = "deck"
	IDService    IDKind = IDKind(CardService)
	IDCredential IDKind = IDKind(CardCredential)
	IDPlaybook   IDKind = IDKind(CardPlaybook)
	IDProposal   IDKind = "proposal"
	IDSignal     IDKind = "signal"
	IDToken      IDKind = "token"
	IDSession    IDKind = "session"
)

// IDKinds lists every kind, for the Store's table of them and its test.
var IDKinds = []IDKind{IDDeck, IDService, IDCredential, IDPlaybook, IDProposal, IDSignal, IDToken, IDSession}

var idPrefixRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// ResolveIDPrefix finds the row a reference names by the start of its id, once the reference
// named no row exactly: the whole id when exactly one id of kind starts with ref (case does not
// matter); "" when none does or ref cannot be the start of an id (the caller answers its own
// NOT_FOUND); an INVALID_ARGUMENT listing the candidates when several do.
func ResolveIDPrefix(ctx context.Context, st Store, kind IDKind, ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	if len(ref) < MinIDPrefix || !idPrefixRE.MatchString(ref) {
		return "", nil
	}
	ids, err := st.ListIDsWithPrefix(ctx, kind, ref, maxKnownListed+1)
	if err != nil {
		return "", StoreErr(fmt.Sprintf("finding a %s by the start of its id", kind), err)
	}
	switch len(ids) {
	case 0:
		return "", nil
	case 1:
		return ids[0], nil
	}
	return "", AmbiguousIDPrefix(kind, ref, ids)
}

// AmbiguousIDPrefix is the refusal of an id prefix that several ids start with.
func AmbiguousIDPrefix(kind IDKind, ref string, ids []string) *Error {
	many := fmt.Sprint(len(ids))
	if len(ids) > maxKnownListed {
		many = "more than " + fmt.Sprint(maxKnownListed)
	}
	return Errorf(CodeInvalidArgument, "%q is the start of %s %s ids: %s", Clip(ref, 40), many, kind,
		KnownList(ids)).WithDetail("candidates", CapList(ids)).
		WithHint("give more of the id, until only one " + string(kind) + " id starts with it")
}
