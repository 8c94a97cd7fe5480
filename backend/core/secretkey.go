package core

import (
	"context"
	"crypto/hmac"
	"errors"
	"fmt"

	"github.com/agent-deck/agent-deck/backend"
)

// ErrKeyMismatch is in the chain of CheckSecretKey's error when the key is not the one this
// database's secrets are sealed with; the server must not start with it.
var ErrKeyMismatch = errors.New("the secret key does not match this database")

// IsKeyMismatch reports whether err says the secret key does not match the database.
func IsKeyMismatch(err error) bool { return errors.Is(err, ErrKeyMismatch) }

// CheckSecretKey runs once at start-up, before the server takes requests, in one transaction
// that concurrent starts take in turn:
//
//   - a database that recorded a key fingerprint must match this key's, or the start is refused;
//   - a database without one records it, after checking that this key opens every stored secret;
//   - values sealed before secrets were bound to their row are opened and re-sealed with their
//     row and column as associated data, all or none; afterwards the old format is refused.
//
// A refusal wraps ErrKeyMismatch and changes nothing.
func (s *Hub) CheckSecretKey(ctx context.Context) error {
	if s.sealer == nil {
		return backend.Internal("checking the secret key", errors.New("no sealer configured"))
	}
	fp := s.sealer.Fingerprint()
	err := s.store.UpdateSecretKeyState(ctx, func(st backend.SecretKeyState, load func() ([]backend.SealedValue, error)) (backend.SecretKeyState, []backend.SealedValue, error) {
		if st.Fingerprint != nil && !hmac.Equal(st.Fingerprint, fp) {
			return st, nil, keyMismatch("its fingerprint differs from the one this database recorded", nil)
		}
		if st.Fingerprint != nil && st.Bound {
			return st, nil, nil
		}
		values, err := load()
		if err != nil {
			return st, nil, backend.StoreErr("reading stored secrets", err)
		}
		rewrite, err := s.resealBound(values, st.Bound)
		if err != nil {
			return st, nil, err
		}
		return backend.SecretKeyState{Fingerprint: fp, Bound: true}, rewrite, nil
	})
	if err != nil && !IsKeyMismatch(err) {
		return backend.StoreErr("checking the secret key", err)
	}
	return err
}

// resealBound checks that every value opens with this key and returns them re-sealed bound to their
// row (none when they already are).
func (s *Hub) resealBound(values []backend.SealedValue, bound bool) ([]backend.SealedValue, error) {
	var rewrite []backend.SealedValue
	for _, v := range values {
		aad := v.Field.AAD(v.ID)
		if bound {
			if _, err := s.sealer.Open(v.Sealed, aad); err != nil {
				return nil, keyMismatch("it does not open the stored secret "+string(aad), err)
			}
			continue
		}
		plain, err := s.sealer.OpenUnbound(v.Sealed)
		if err != nil {
			// Already bound (written by this release before the state was recorded): keep it.
			if _, berr := s.sealer.Open(v.Sealed, aad); berr == nil {
				continue
			}
			return nil, keyMismatch("it does not open the stored secret "+string(aad), err)
		}
		sealed, err := s.sealer.Seal(plain, aad)
		if err != nil {
			return nil, err
		}
		rewrite = append(rewrite, backend.SealedValue{Field: v.Field, ID: v.ID, Sealed: sealed})
	}
	return rewrite, nil
}

// keyMismatch is the refusal to start with a key that does not match the database. The caller
// (serve) adds which key it read and where from.
func keyMismatch(why string, cause error) *backend.Error {
	err := fmt.Errorf("%w: %s", ErrKeyMismatch, why)
	if cause != nil {
		err = fmt.Errorf("%w: %w", err, cause)
	}
	e := &backend.Error{
		Code:    backend.CodeUnavailable,
		Message: "the secret key does not match this database: " + why,
		Hint:    "restore the key that matches this database, or point the server at the right one; nothing was changed",
		Err:     err,
	}
	return e.WithDetail("reason", why)
}
