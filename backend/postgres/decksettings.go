package postgres

import (
	"context"

	"github.com/agent-deck/agent-deck/backend"
)

// SetDeckServiceSettings stores a deck's rules for one service it links, replacing any it had;
// settings with no rule delete the row, so a deck without rules has none.
func (s *Store) SetDeckServiceSettings(ctx context.Context, deckID, serviceID string, st backend.DeckServiceSettings) error {
	deck, svc := asUUID(deckID), asUUID(serviceID)
	if deck == "" {
		return notFound("deck", deckID)
	}
	if svc == "" {
		return notFound("service", serviceID)
	}
	if st.Empty() {
		_, err := s.db.Exec(ctx, `DELETE FROM deck_service_settings WHERE deck_id = $1 AND service_id = $2`, deck, svc)
		return classify("clear deck service settings", err)
	}
	_, err := s.db.Exec(ctx, `
		INSERT INTO deck_service_settings (deck_id, service_id, allow_tools, deny_tools, credential_id)
		VALUES ($1, $2, $3, $4, NULLIF($5, ''))
		ON CONFLICT (deck_id, service_id) DO UPDATE SET allow_tools = EXCLUDED.allow_tools,
			deny_tools = EXCLUDED.deny_tools, credential_id = EXCLUDED.credential_id`,
		deck, svc, strs(st.AllowTools), strs(st.DenyTools), st.CredentialID)
	return classify("save deck service settings", err)
}

// DeckChoosesCredential reports whether any deck presents its own credential to the service.
func (s *Store) DeckChoosesCredential(ctx context.Context, serviceID string) (bool, error) {
	svc := asUUID(serviceID)
	if svc == "" {
		return false, nil
	}
	var yes bool
	err := s.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM deck_service_settings
		WHERE service_id = $1 AND credential_id IS NOT NULL)`, svc).Scan(&yes)
	return yes, classify("read deck credentials", err)
}
