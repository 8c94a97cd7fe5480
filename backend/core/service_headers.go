package core

import (
	"sort"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// secretHeaderParts mark a header name as secret when it contains any of them (case-insensitive).
var secretHeaderParts = []string{
	"auth", "cookie", "token", "secret", "key", "password", "passwd", "credential",
	"session", "signature", "private", "bearer",
}

// IsSecretHeader reports whether a header's value is treated as a secret: encrypted at rest and
// masked on every read. It errs on the side of secrecy.
func IsSecretHeader(name string) bool {
	n := strings.ToLower(name)
	for _, p := range secretHeaderParts {
		if strings.Contains(n, p) {
			return true
		}
	}
	return false
}

// checkHeaders validates header names and values; it returns a copy with names trimmed.
func checkHeaders(field string, h map[string]string) (map[string]string, error) {
	if len(h) > backend.MaxEntries {
		return nil, backend.Invalid(field, "at most %d headers, got %d", backend.MaxEntries, len(h))
	}
	out := make(map[string]string, len(h))
	seen := map[string]string{}
	for name, value := range h {
		name = strings.TrimSpace(name)
		if err := backend.CheckHeaderName(field, name); err != nil {
			return nil, err
		}
		if prev, dup := seen[strings.ToLower(name)]; dup {
			return nil, backend.Invalid(field, "headers %q and %q differ only in case", prev, name)
		}
		seen[strings.ToLower(name)] = name
		if len(value) > backend.MaxValueBytes || strings.ContainsAny(value, "\r\n\x00") {
			return nil, backend.Invalid(field, "the value of header %q must be one line of at most %d bytes",
				name, backend.MaxValueBytes)
		}
		out[name] = value
	}
	return out, nil
}

// checkEnv validates local env names and values.
func checkEnv(field string, env map[string]string) error {
	if len(env) > backend.MaxEntries {
		return backend.Invalid(field, "at most %d variables, got %d", backend.MaxEntries, len(env))
	}
	for name, value := range env {
		if err := backend.CheckEnvName(field, name); err != nil {
			return err
		}
		if len(value) > backend.MaxValueBytes || strings.ContainsRune(value, 0) {
			return backend.Invalid(field, "the value of %s must be at most %d bytes without NUL", name, backend.MaxValueBytes)
		}
	}
	return nil
}

// splitHeaders separates secret-looking headers (to be sealed) from the rest.
func splitHeaders(h map[string]string) (plain, secret map[string]string) {
	plain, secret = map[string]string{}, map[string]string{}
	for name, value := range h {
		if IsSecretHeader(name) {
			secret[name] = value
		} else {
			plain[name] = value
		}
	}
	return plain, secret
}

// keepMasked resolves a patch map against the stored one: a value equal to MaskedValue keeps the
// stored value for that name (case-insensitively). A masked name with nothing stored is an error.
func keepMasked(field string, patch, stored map[string]string) (map[string]string, error) {
	byLower := make(map[string]string, len(stored))
	for k, v := range stored {
		byLower[strings.ToLower(k)] = v
	}
	out := make(map[string]string, len(patch))
	for k, v := range patch {
		if v == backend.MaskedValue {
			old, ok := byLower[strings.ToLower(k)]
			if !ok {
				return nil, backend.Invalid(field, "%q is %q but has no stored value to keep; send the real value",
					k, backend.MaskedValue)
			}
			v = old
		}
		out[k] = v
	}
	return out, nil
}

// maskedKeys returns a map with every key of m and MaskedValue as its value; nil when empty.
func maskedKeys(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k := range m {
		out[k] = backend.MaskedValue
	}
	return out
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
