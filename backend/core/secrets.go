package core

import (
	"encoding/json"
	"errors"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/secret"
)

// sealMap seals a string map as JSON for field f of row id; an empty map seals to nil.
func (s *Hub) sealMap(f backend.SealedField, id string, m map[string]string) ([]byte, error) {
	if len(m) == 0 {
		return nil, nil
	}
	plain, err := json.Marshal(m)
	if err != nil {
		return nil, backend.Internal("encoding secrets", err)
	}
	return s.seal(f, id, plain)
}

// openMap opens a map sealed by sealMap for the same field and row; nil opens to an empty map.
func (s *Hub) openMap(f backend.SealedField, id string, sealed []byte) (map[string]string, error) {
	m := map[string]string{}
	if len(sealed) == 0 {
		return m, nil
	}
	plain, err := s.open(f, id, sealed)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(plain, &m); err != nil {
		return nil, secret.Unreadable(string(f.AAD(id)), errors.New("sealed map is not JSON"))
	}
	return m, nil
}

// seal is the one way the core seals a value: bound to field f of row id, which must be known.
func (s *Hub) seal(f backend.SealedField, id string, plain []byte) ([]byte, error) {
	if s.sealer == nil {
		return nil, backend.Internal("sealing a secret", errors.New("no sealer configured"))
	}
	if id == "" {
		return nil, backend.Internal("sealing a secret", errors.New("row id unknown at seal time"))
	}
	out, err := s.sealer.Seal(plain, f.AAD(id))
	if err != nil {
		return nil, backend.StoreErr("sealing a secret", err)
	}
	return out, nil
}

func (s *Hub) open(f backend.SealedField, id string, sealed []byte) ([]byte, error) {
	if s.sealer == nil {
		return nil, backend.Internal("opening a secret", errors.New("no sealer configured"))
	}
	out, err := s.sealer.Open(sealed, f.AAD(id))
	if err != nil {
		var e *backend.Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, secret.Unreadable(string(f.AAD(id)), err)
	}
	return out, nil
}
