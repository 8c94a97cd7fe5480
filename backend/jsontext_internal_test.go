package backend

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzDuplicateKey holds duplicateKey to the plain reading it replaced (a heap object per open
// object): the same offset and key for any text (its seeds run with the tests).
func FuzzDuplicateKey(f *testing.F) {
	many := `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,` +
		`"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17`
	for _, seed := range []string{
		`{"a":1,"a":2}`, `{"a":{"b":1},"b":2,"a":3}`, `[{"a":1},{"a":1,"a":2}]`,
		many + `,"k3":3}`, many + `,"n":{"k3":1,"k3":2}}`, many + `,"n":{"x":1},"k17":0}`,
		`{"a":{` + many[1:] + `},"k1":1,"a":2}`, `{"\u0061":1,"a":2}`, `{"a":"},{\"a\":","b":1}`,
		`{"a":[{"a":1}],"b":{"a":{"a":1}},"a":0}`, `}}{"a":1,"a":1`, `{"a`, `{"a":1,`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		wo, wk := referenceDuplicateKey(raw)
		if o, k := duplicateKey(raw); o != wo || k != wk {
			t.Fatalf("%q: duplicateKey %d %q, reference %d %q", raw, o, k, wo, wk)
		}
	})
}

func referenceDuplicateKey(raw []byte) (int, string) {
	var stack []*refKeys // nil entries are arrays
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '{':
			stack = append(stack, &refKeys{wantKey: true})
		case '[':
			stack = append(stack, nil)
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			if n := len(stack); n > 0 && stack[n-1] != nil {
				stack[n-1].wantKey = true
			}
		case '"':
			end, escaped := stringEnd(raw, i)
			if n := len(stack); n > 0 && stack[n-1] != nil && stack[n-1].wantKey {
				o := stack[n-1]
				o.wantKey = false
				key := raw[i+1 : max(end-1, i+1)]
				if escaped {
					var k string
					if json.Unmarshal(raw[i:end], &k) != nil {
						return -1, ""
					}
					key = []byte(k)
				}
				if o.add(key) {
					return i, string(key)
				}
			}
			i = end - 1
		}
	}
	return -1, ""
}

// refKeys are the keys one object has named so far: a short list compared in place, a set
// once the object is large.
type refKeys struct {
	wantKey bool
	keys    [][]byte
	set     map[string]bool
}

// add records key and reports whether the object had named it already.
func (o *refKeys) add(key []byte) bool {
	if o.set != nil {
		if o.set[string(key)] {
			return true
		}
		o.set[string(key)] = true
		return false
	}
	for _, k := range o.keys {
		if bytes.Equal(k, key) {
			return true
		}
	}
	o.keys = append(o.keys, key)
	if len(o.keys) > 16 {
		o.set = make(map[string]bool, 2*len(o.keys))
		for _, k := range o.keys {
			o.set[string(k)] = true
		}
		o.keys = nil
	}
	return false
}
