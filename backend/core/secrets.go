package core

import (
	"encoding/json"
	"errors"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/secret"
)

// sealing is the one way the core seals and opens stored secrets: each value bound to its
// field and row (SealedField.AAD).
type sealing struct {
	sealer backend.Sealer
}

// sealMap seals a string map as JSON for field f of row id; an empty map seals to nil.
func (s *sealing) sealMap(f backend.SealedField, id string, m map[string]string) ([]byte, error) {
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
func (s *sealing) openMap(f backend.SealedField, id string, sealed []byte) (map[string]string, error) {
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
func (s *sealing) seal(f backend.SealedField, id string, plain []byte) ([]byte, error) {
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

func (s *sealing) open(f backend.SealedField, id string, sealed []byte) ([]byte, error) {
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

func (s *sealing) sealJSON(f backend.SealedField, id string, v any) ([]byte, error) {
	plain, err := json.Marshal(v)
	if err != nil {
		return nil, backend.Internal("encoding a sign-in", err)
	}
	return s.seal(f, id, plain)
}

func (s *sealing) openJSON(f backend.SealedField, id string, sealed []byte, v any) error {
	plain, err := s.open(f, id, sealed)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(plain, v); err != nil {
		return secret.Unreadable(string(f.AAD(id)), errors.New("sealed sign-in is not JSON"))
	}
	return nil
}
