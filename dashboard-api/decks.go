package dashboardapi

import (
	"context"

	"github.com/gin-gonic/gin"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// reorderRequest is the body of PUT …/cards/{card_type}/order; the deck and the card type come
// from the path.
type reorderRequest struct {
	OrderedCardIDs []string `json:"ordered_card_ids"`
}

// ctx is the request context, carrying the authenticated Actor.
func ctx(c *gin.Context) context.Context { return c.Request.Context() }

func (a *api) listDecks(c *gin.Context) ([]backend.Deck, error) {
	return a.svc.ListDecks(ctx(c))
}

func (a *api) createDeck(c *gin.Context, in core.DeckInput) (backend.Deck, error) {
	return a.svc.CreateDeck(ctx(c), in)
}

func (a *api) getDeck(c *gin.Context) (backend.Deck, error) {
	return a.svc.GetDeck(ctx(c), c.Param("deck"))
}

func (a *api) renameDeck(c *gin.Context, in core.DeckInput) (backend.Deck, error) {
	return a.svc.RenameDeck(ctx(c), c.Param("deck"), in)
}

func (a *api) deleteDeck(c *gin.Context) error {
	return a.svc.DeleteDeck(ctx(c), c.Param("deck"))
}

// DeckView is a deck page as the dashboard shows it: the page plus the deck's display_summary
// line as agents bound to it see it (without a session's badge).
type DeckView struct {
	core.DeckPage
	DisplaySummary string `json:"display_summary"`
}

func (a *api) deckSnapshot(c *gin.Context) (DeckView, error) {
	in := core.DeckPageInput{CardType: backend.CardType(c.Query("card_type")), Query: c.Query("query"),
		Cursor: c.Query("cursor"), Budget: intQuery(c, "budget")}
	page, err := a.svc.DeckPage(ctx(c), c.Param("deck"), in)
	if err != nil {
		return DeckView{}, err
	}
	return DeckView{DeckPage: page, DisplaySummary: core.DisplaySummary(page.Name, page.Counts, "")}, nil
}

func (a *api) linkCard(c *gin.Context, in core.LinkCardInput) (core.CardsResult, error) {
	in.Deck = c.Param("deck")
	return a.svc.LinkCard(ctx(c), in)
}

func (a *api) unlinkCard(c *gin.Context) (core.CardsResult, error) {
	return a.svc.UnlinkCard(ctx(c), core.CardRef{
		Deck:     c.Param("deck"),
		CardType: backend.CardType(c.Param("card_type")),
		CardID:   c.Param("card_id"),
	})
}

func (a *api) reorderCards(c *gin.Context, in reorderRequest) (core.CardsResult, error) {
	return a.svc.ReorderCards(ctx(c), core.ReorderCardsInput{
		Deck:           c.Param("deck"),
		CardType:       backend.CardType(c.Param("card_type")),
		OrderedCardIDs: in.OrderedCardIDs,
	})
}

func (a *api) getDeckServiceSettings(c *gin.Context) (core.DeckServiceSettingsResult, error) {
	return a.svc.GetDeckServiceSettings(ctx(c), c.Param("deck"), c.Param("service"))
}

func (a *api) updateDeckServiceSettings(c *gin.Context, in core.DeckServiceSettingsInput) (core.DeckServiceSettingsResult, error) {
	return a.svc.UpdateDeckServiceSettings(ctx(c), c.Param("deck"), c.Param("service"), in)
}
