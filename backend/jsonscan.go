package backend

// Readers of valid JSON text, for the hot paths that split a message into its members in place
// instead of decoding it. Each assumes text that json.Valid accepts; on anything else they stop
// at the end of b rather than fail.

// SkipJSONSpace returns the index of the first byte at or after i that is not JSON white space.
func SkipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// SkipJSONString returns the index just past the JSON string starting at b[i] == '"'.
func SkipJSONString(b []byte, i int) int {
	end, _ := stringEnd(b, i)
	return end
}

// SkipJSONValue returns the index just past the JSON value starting at b[i].
func SkipJSONValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return SkipJSONString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = SkipJSONString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for i < len(b) && !isJSONDelimiter(b[i]) {
		i++
	}
	return i
}

func isJSONDelimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// PlainJSONString returns the text between the quotes of JSON string q (quotes included) when
// it is printable ASCII with nothing to unescape — what the decoder would give, without it; ok
// is false for anything else.
func PlainJSONString(q []byte) ([]byte, bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return nil, false
	}
	for _, c := range q[1 : len(q)-1] {
		if c < 0x20 || c >= 0x7f || c == '\\' || c == '"' {
			return nil, false
		}
	}
	return q[1 : len(q)-1], true
}
