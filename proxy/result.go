package proxy

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/agent-deck/agent-deck/backend"
)

// field is one member of a JSON object, as byte offsets into the document.
type field struct {
	key             string
	start, valStart int
	valEnd          int
}

// objectFields splits a JSON object into its top-level members without decoding their values,
// so a result can be edited (its _meta removed) while every other byte stays as sent.
func objectFields(b []byte) ([]field, bool) {
	var out []field
	ok := eachMember(b, func(key []byte, f field) {
		f.key = string(key)
		out = append(out, f)
	})
	if !ok {
		return nil, false
	}
	return out, true
}

// eachMember calls fn with each top-level member of JSON object b, in order: its name (as
// json.Unmarshal decodes it) and offsets (field.key left empty), and reports whether b is one.
// It builds nothing for a name without escapes, as every member name of a tool result is.
func eachMember(b []byte, fn func(key []byte, f field)) bool {
	i := backend.SkipJSONSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = backend.SkipJSONSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for i < len(b) {
		if b[i] != '"' {
			return false
		}
		start := i
		end := backend.SkipJSONString(b, i)
		key, ok := backend.PlainJSONString(b[start:end])
		if !ok {
			var k string
			if err := json.Unmarshal(b[start:end], &k); err != nil {
				return false
			}
			key = []byte(k)
		}
		i = backend.SkipJSONSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		vs := backend.SkipJSONSpace(b, i+1)
		ve := backend.SkipJSONValue(b, vs)
		fn(key, field{start: start, valStart: vs, valEnd: ve})
		i = backend.SkipJSONSpace(b, ve)
		if i >= len(b) {
			return false
		}
		if b[i] == '}' {
			return true
		}
		if b[i] != ',' {
			return false
		}
		i = backend.SkipJSONSpace(b, i+1)
	}
	return false
}

// passResult removes the downstream's top-level _meta from a CallToolResult and reports its
// isError flag; every other member is kept byte for byte.
func passResult(raw []byte) ([]byte, bool) {
	isError, hasMeta := false, false
	ok := eachMember(raw, func(key []byte, f field) {
		switch string(key) {
		case "isError":
			isError = string(raw[f.valStart:f.valEnd]) == "true"
		case "_meta":
			hasMeta = true
		}
	})
	if !ok {
		return raw, false
	}
	if !hasMeta {
		return raw, isError
	}
	fields, _ := objectFields(raw)
	out := make([]byte, 0, len(raw))
	out = append(out, '{')
	for _, f := range fields {
		if f.key == "_meta" {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, raw[f.start:f.valEnd]...)
	}
	return append(out, '}'), isError
}

// spillDescriptor is what replaces a result too large to return inline.
type spillDescriptor struct {
	Spilled  bool   `json:"spilled"`
	Path     string `json:"path"`
	MimeType string `json:"mime_type"`
	Size     int    `json:"size"`
}

// spill writes a large result to Home/tool-results and returns the CallToolResult that
// points at it. A single text or binary block is written as itself (so the file opens in the
// right program); anything else as the result's JSON.
func (p *Proxy) spill(service, tool string, raw []byte, isError bool) ([]byte, error) {
	data, mime, ext := spillContent(raw)
	dir := p.resultsDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create spill dir: %w", err)
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	name := fmt.Sprintf("%s-%s-%s-%s%s", slug(service), slug(tool),
		time.Now().UTC().Format("20060102T150405"), hex.EncodeToString(rnd[:]), ext)
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create spill file: %w", err)
	}
	if _, err := data.writeTo(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("write spill file: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("close spill file: %w", err)
	}
	p.capResults(name)
	p.opts.Events.resultSpilled(service)
	d := spillDescriptor{Spilled: true, Path: path, MimeType: mime, Size: data.size()}
	text, _ := json.Marshal(d)
	return json.Marshal(map[string]any{
		"content":           []map[string]string{{"type": "text", "text": string(text)}},
		"structuredContent": d,
		"isError":           isError,
	})
}

// spilled is what a spill file holds: a text block as decoded, or bytes (the decoded data of a
// binary block, the result's JSON as it came). Neither is copied again on its way to disk.
type spilled struct {
	text string
	data []byte
}

func (s spilled) size() int { return len(s.text) + len(s.data) }

func (s spilled) writeTo(f *os.File) (int, error) {
	if s.data != nil {
		return f.Write(s.data)
	}
	return f.WriteString(s.text)
}

func spillContent(raw []byte) (data spilled, mime, ext string) {
	var res struct {
		Content []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			Data     string `json:"data"`
			MimeType string `json:"mimeType"`
		} `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err == nil && len(res.Content) == 1 {
		c := res.Content[0]
		switch c.Type {
		case "text":
			if t := strings.TrimSpace(c.Text); len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t)) {
				return spilled{text: c.Text}, "application/json", ".json"
			}
			return spilled{text: c.Text}, "text/plain", ".txt"
		case "image", "audio":
			if b, err := base64.StdEncoding.DecodeString(c.Data); err == nil && c.MimeType != "" {
				return spilled{data: b}, c.MimeType, extFor(c.MimeType)
			}
		}
	}
	return spilled{data: raw}, "application/json", ".json"
}

func extFor(mime string) string {
	switch mime {
	case "image/png":
		return ".png"
	case "image/jpeg":
		return ".jpg"
	case "image/gif":
		return ".gif"
	case "image/webp":
		return ".webp"
	case "audio/wav", "audio/x-wav":
		return ".wav"
	case "audio/mpeg":
		return ".mp3"
	}
	return ".bin"
}

// slug keeps a file name readable and safe: letters, digits and dashes, at most 40.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= 40 {
			break
		}
	}
	out := strings.Trim(b.String(), "-")
	if out == "" {
		return "x"
	}
	return out
}
