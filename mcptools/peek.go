package mcptools

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/agent-deck/agent-deck/backend"
)

// peekMessage is what peekBody reads of a JSON-RPC message: what this endpoint and the fast
// path need.
type peekMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
	Params  struct {
		Name       json.RawMessage `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
		RequestID  json.RawMessage `json:"requestId"` // of notifications/cancelled
		ClientInfo struct {
			Name string `json:"name"`
		} `json:"clientInfo"`
		Capabilities struct { // of initialize
			Elicitation json.RawMessage `json:"elicitation"`
			Sampling    json.RawMessage `json:"sampling"`
			Roots       json.RawMessage `json:"roots"`
		} `json:"capabilities"`
		Meta json.RawMessage `json:"_meta"` // a progress token (fastpath.go)
		// Present, these need the transport (fastpath.go).
		Task           json.RawMessage `json:"task"`
		InputResponses json.RawMessage `json:"inputResponses"`
		RequestState   json.RawMessage `json:"requestState"`
	} `json:"params"`
}

// decode reads body with json.Unmarshal; false when that fails.
func (m *peekMessage) decode(body []byte) bool { return json.Unmarshal(body, m) == nil }

// read reads body as decode does (names matched regardless of case, the last of a repeated
// name kept, null leaving a field as it is, a value of another type failing the whole
// message), without the decoder: every request body is read, and the decoder's reflection and
// copies were a good part of a proxied call's garbage. After one validation the members are
// split in one copy of body. A member name that is not plain ASCII goes to the decoder, whose
// matching of other scripts' letters this does not repeat.
func (m *peekMessage) read(body []byte) bool {
	if !json.Valid(body) {
		return false
	}
	b := bytes.Clone(bytes.TrimSpace(body))
	plain := true
	ok := eachObjectMember(b, &plain, func(name, v []byte) bool {
		switch {
		case bytes.EqualFold(name, []byte("jsonrpc")):
			return readString(v, &m.JSONRPC)
		case bytes.EqualFold(name, []byte("id")):
			m.ID = v
		case bytes.EqualFold(name, []byte("method")):
			return readString(v, &m.Method)
		case bytes.EqualFold(name, []byte("result")):
			m.Result = v
		case bytes.EqualFold(name, []byte("error")):
			m.Error = v
		case bytes.EqualFold(name, []byte("params")):
			return m.readParams(v, &plain)
		}
		return true
	})
	if !plain {
		*m = peekMessage{}
		return m.decode(body)
	}
	return ok
}

func (m *peekMessage) readParams(v []byte, plain *bool) bool {
	p := &m.Params
	return eachObjectMember(v, plain, func(name, v []byte) bool {
		switch {
		case bytes.EqualFold(name, []byte("name")):
			p.Name = v
		case bytes.EqualFold(name, []byte("arguments")):
			p.Arguments = v
		case bytes.EqualFold(name, []byte("requestId")):
			p.RequestID = v
		case bytes.EqualFold(name, []byte("clientInfo")):
			return eachObjectMember(v, plain, func(name, v []byte) bool {
				if bytes.EqualFold(name, []byte("name")) {
					return readString(v, &p.ClientInfo.Name)
				}
				return true
			})
		case bytes.EqualFold(name, []byte("capabilities")):
			c := &p.Capabilities
			return eachObjectMember(v, plain, func(name, v []byte) bool {
				switch {
				case bytes.EqualFold(name, []byte("elicitation")):
					c.Elicitation = v
				case bytes.EqualFold(name, []byte("sampling")):
					c.Sampling = v
				case bytes.EqualFold(name, []byte("roots")):
					c.Roots = v
				}
				return true
			})
		case bytes.EqualFold(name, []byte("_meta")):
			p.Meta = v
		case bytes.EqualFold(name, []byte("task")):
			p.Task = v
		case bytes.EqualFold(name, []byte("inputResponses")):
			p.InputResponses = v
		case bytes.EqualFold(name, []byte("requestState")):
			p.RequestState = v
		}
		return true
	})
}

// eachObjectMember calls fn with the name and value of each member of the valid JSON value v,
// in order, when v is an object (null has none), and reports whether v is one and fn took
// every member. A name that is not plain ASCII sets *plain to false and stops.
func eachObjectMember(v []byte, plain *bool, fn func(name, v []byte) bool) bool {
	if string(v) == "null" {
		return true
	}
	if len(v) == 0 || v[0] != '{' {
		return false
	}
	for i := backend.SkipJSONSpace(v, 1); i < len(v) && v[i] == '"'; {
		end := backend.SkipJSONString(v, i)
		name, ok := backend.PlainJSONString(v[i:end])
		if !ok {
			*plain = false
			return false
		}
		vs := backend.SkipJSONSpace(v, backend.SkipJSONSpace(v, end)+1) // past the colon
		ve := backend.SkipJSONValue(v, vs)
		if !fn(name, v[vs:ve:ve]) {
			return false
		}
		if i = backend.SkipJSONSpace(v, ve); i < len(v) && v[i] == ',' {
			i = backend.SkipJSONSpace(v, i+1)
		}
	}
	return true
}

// readString sets *s to the JSON string v as the decoder does: null leaves it, anything but a
// string fails.
func readString(v []byte, s *string) bool {
	switch {
	case string(v) == "null":
		return true
	case len(v) == 0 || v[0] != '"':
		return false
	}
	if p, ok := plainString(v); ok {
		*s = p
		return true
	}
	return json.Unmarshal(v, s) == nil
}

// readID sets *id to the JSON-RPC id raw (a valid JSON value, or nothing) as json.Unmarshal
// into any does: a number as float64, a string as string; left as it is where that fails.
func readID(raw []byte, id *any) {
	if len(raw) > 0 && (raw[0] == '-' || '0' <= raw[0] && raw[0] <= '9') {
		if f, err := strconv.ParseFloat(string(raw), 64); err == nil {
			*id = f
			return
		}
	} else if s, ok := plainString(raw); ok {
		*id = s
		return
	}
	_ = json.Unmarshal(raw, id)
}
