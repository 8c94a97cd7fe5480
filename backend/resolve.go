package backend

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
)

// maxKnownListed caps how many known ids/names an error message lists.
const maxKnownListed = 20

// storeErr passes classified errors through and turns anything else into a generic INTERNAL
// error, so driver text never reaches a client.
func StoreErr(op string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return Internal(op, err)
}

func IsNotFound(err error) bool { return ErrorCode(err) == CodeNotFound }

// knownList formats up to maxKnownListed entries for a message, saying how many were left out.
func KnownList(items []string) string {
	if len(items) == 0 {
		return "none yet"
	}
	if len(items) <= maxKnownListed {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s, … (%d more)", strings.Join(items[:maxKnownListed], ", "),
		len(items)-maxKnownListed)
}

func CapList(items []string) []string {
	if len(items) > maxKnownListed {
		return items[:maxKnownListed]
	}
	return OrEmpty(items)
}

// serviceByRef, credentialByRef and playbookByRef find a card by id or name (label, title);
// NOT_FOUND lists the known ones.
func ServiceByRef(ctx context.Context, st Store, ref string) (ServiceRecord, error) {
	return cardByRef(ctx, st, CardService, "name", ref, st.GetService)
}

func CredentialByRef(ctx context.Context, st Store, ref string) (CredentialRecord, error) {
	return cardByRef(ctx, st, CardCredential, "label", ref, st.GetCredential)
}

func PlaybookByRef(ctx context.Context, st Store, ref string) (Playbook, error) {
	return cardByRef(ctx, st, CardPlaybook, "title", ref, st.GetPlaybook)
}

// cardByRef finds a card of type t with get; a blank ref is INVALID_ARGUMENT on the card's id
// field, an unknown one NOT_FOUND listing the known cards.
func cardByRef[R any](ctx context.Context, st Store, t CardType, name, ref string, get func(context.Context, string) (R, error)) (R, error) {
	var zero R
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return zero, Invalid(string(t)+"_id", "a %s id or %s is required", t, name)
	}
	rec, err := get(ctx, ref)
	if IsNotFound(err) {
		id, perr := ResolveIDPrefix(ctx, st, IDKind(t), ref)
		if perr != nil {
			return zero, perr
		}
		if id == "" {
			return zero, unknownCardError(ctx, st, t, ref)
		}
		rec, err = get(ctx, id)
	}
	return rec, StoreErr("reading a "+string(t), err)
}

// cardInfo is the id and display name of any card.
type CardInfo struct {
	ID   string
	Name string
}

func (c CardInfo) String() string {
	if c.Name == "" || c.Name == c.ID {
		return c.ID
	}
	return fmt.Sprintf("%s (%s)", c.Name, c.ID)
}

// checkCardType validates a card type.
func CheckCardType(field string, t CardType) error {
	for _, k := range CardTypes {
		if t == k {
			return nil
		}
	}
	return InvalidEnum(field, t, CardTypes)
}

// getCard finds one card of type t by id or name/label/title, or by the unique start of its id.
func GetCard(ctx context.Context, st Store, t CardType, ref string) (CardInfo, error) {
	c, err := getCard(ctx, st, t, ref)
	if !IsNotFound(err) {
		return c, err
	}
	id, perr := ResolveIDPrefix(ctx, st, IDKind(t), ref)
	if perr != nil || id == "" {
		return c, cmp.Or(perr, err)
	}
	return getCard(ctx, st, t, id)
}

func getCard(ctx context.Context, st Store, t CardType, ref string) (CardInfo, error) {
	switch t {
	case CardService:
		r, err := st.GetService(ctx, ref)
		return CardInfo{r.ID, r.Name}, err
	case CardCredential:
		r, err := st.GetCredential(ctx, ref)
		return CardInfo{r.ID, r.Label}, err
	case CardPlaybook:
		r, err := st.GetPlaybook(ctx, ref)
		return CardInfo{r.ID, r.Title}, err
	}
	return CardInfo{}, CheckCardType("card_type", t)
}

// listCards lists every card of type t in the collection.
func ListCards(ctx context.Context, st Store, t CardType) ([]CardInfo, error) {
	var out []CardInfo
	switch t {
	case CardService:
		rs, err := st.ListServices(ctx)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			out = append(out, CardInfo{r.ID, r.Name})
		}
	case CardCredential:
		rs, err := st.ListCredentials(ctx)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			out = append(out, CardInfo{r.ID, r.Label})
		}
	case CardPlaybook:
		rs, err := st.ListPlaybooks(ctx)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			out = append(out, CardInfo{r.ID, r.Title})
		}
	}
	return out, nil
}

// resolveCard finds a collection card by id or name. NOT_FOUND lists the known cards of that
// type, so the caller can correct itself.
func ResolveCard(ctx context.Context, st Store, t CardType, ref string) (CardInfo, error) {
	if err := CheckCardType("card_type", t); err != nil {
		return CardInfo{}, err
	}
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return CardInfo{}, Invalid("card_id", "a %s id or name is required", t)
	}
	c, err := GetCard(ctx, st, t, ref)
	if err == nil {
		return c, nil
	}
	if !IsNotFound(err) {
		return CardInfo{}, StoreErr("finding a "+string(t), err)
	}
	return CardInfo{}, unknownCardError(ctx, st, t, ref)
}

func unknownCardError(ctx context.Context, st Store, t CardType, ref string) error {
	all, err := ListCards(ctx, st, t)
	if err != nil {
		return StoreErr("listing "+string(t)+"s", err)
	}
	known := make([]string, len(all))
	for i, c := range all {
		known[i] = c.String()
	}
	return Errorf(CodeNotFound, "no %s %q; known %ss: %s", t, Clip(ref, 100), t, KnownList(known)).
		WithHint(InWordsOf(ctx, "use an id or exact name from the collection (GET /api/v1/"+string(t)+"s)",
			collectionHint(ctx))).
		WithDetail("card_type", string(t)).WithDetail("known", CapList(known))
}

// collectionHint points an agent at the collection's cards, through its own session's tool.
func collectionHint(ctx context.Context) string {
	if tool := ToolFor(ctx, "list_collection"); tool != "" {
		return "use an id or exact name from the collection (" + tool + ")"
	}
	return "use one of the ids or exact names the message lists"
}

// nameConflict turns a store CONFLICT into a message naming the taken name; other errors pass
// through storeErr.
func NameConflict(err error, kind, field, name string) error {
	return StoredNameConflict(err, kind, field, name, "")
}

// storedNameConflict is nameConflict naming the card that holds the name as it is stored
// ("dev", when "DEV" was asked for); stored may be empty when it is not known.
func StoredNameConflict(err error, kind, field, name, stored string) error {
	if ErrorCode(err) != CodeConflict {
		return StoreErr("saving a "+kind, err)
	}
	msg := fmt.Sprintf("a %s with %s %q already exists (%ss are unique, ignoring case)", kind, field, name, field)
	if stored != "" && stored != name {
		msg = fmt.Sprintf("a %s with %s %q already exists (%ss are unique, ignoring case, so %q is taken)",
			kind, field, stored, field, name)
	}
	return &Error{
		Code:    CodeConflict,
		Message: msg,
		Hint:    "choose another " + field + ", or change the existing " + kind,
		Details: map[string]any{"field": field},
		Err:     err,
	}
}
