package secret

import (
	"context"
	"fmt"
	"log/slog"
)

// NewRedactHandler wraps h so that no log record carries a secret r knows: the message and
// every attribute (groups, errors and other values by their text) are masked by value before h
// formats them. The composition root installs it under every logger, so a downstream that
// echoes its key into an error body cannot put it in a log line at any level. Attributes bound
// with WithAttrs are masked once, when bound.
func NewRedactHandler(h slog.Handler, r *Redactor) slog.Handler {
	return redactHandler{h: h, r: r}
}

type redactHandler struct {
	h slog.Handler
	r *Redactor
}

func (rh redactHandler) Enabled(ctx context.Context, l slog.Level) bool { return rh.h.Enabled(ctx, l) }

func (rh redactHandler) Handle(ctx context.Context, rec slog.Record) error {
	m := rh.r.Mask()
	if m.Empty() {
		return rh.h.Handle(ctx, rec)
	}
	out := slog.NewRecord(rec.Time, rec.Level, m.String(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(redactAttr(m, a))
		return true
	})
	return rh.h.Handle(ctx, out)
}

func (rh redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	m := rh.r.Mask()
	masked := make([]slog.Attr, len(as))
	for i, a := range as {
		masked[i] = redactAttr(m, a)
	}
	return redactHandler{h: rh.h.WithAttrs(masked), r: rh.r}
}

func (rh redactHandler) WithGroup(name string) slog.Handler {
	return redactHandler{h: rh.h.WithGroup(name), r: rh.r}
}

// redactAttr masks one attribute. A value whose text holds a secret is replaced by its masked
// text; other values are kept as they are, so handlers still format numbers and times natively.
func redactAttr(m *Mask, a slog.Attr) slog.Attr {
	if m.Empty() {
		return a
	}
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, m.String(v.String()))
	case slog.KindGroup:
		group := v.Group()
		out := make([]slog.Attr, len(group))
		for i, g := range group {
			out[i] = redactAttr(m, g)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(out...)}
	case slog.KindAny:
		var text string
		switch x := v.Any().(type) {
		case error:
			text = x.Error()
		case fmt.Stringer:
			text = x.String()
		case []byte:
			text = string(x)
		default:
			text = fmt.Sprintf("%+v", x)
		}
		if masked := m.String(text); masked != text {
			return slog.String(a.Key, masked)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
