package dashboardapi

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"

	"github.com/gin-gonic/gin"
)

// maxPageLimit bounds ?limit= on every list.
const maxPageLimit = 1000

// pageParams are the query parameters every list takes.
var pageParams = []queryParam{
	intParam("limit", "answer at most this many items; the Link header's rel=\"next\" URL continues "+
		"(without limit, the whole list from the cursor on)", 1, maxPageLimit),
	{name: "cursor", description: "where the previous page ended: take it from that page's Link rel=\"next\" URL"},
}

// list declares a GET route that answers a JSON array paged by ?limit= and ?cursor=: the body
// stays an array (clients that read the whole list keep working when they send no limit), and
// a page that is not the last carries an RFC 8288 Link header with rel="next". key names the
// JSON member that tells items apart (the id), which the cursor remembers.
func list[T any](path, summary string, fn func(*gin.Context) ([]T, error), key string) route {
	keyOf := keyFunc[T](key)
	r := noBody(http.MethodGet, path, summary, fn)
	r.paged, r.linkNext, r.conditional = true, true, true
	r.query = append([]queryParam(nil), pageParams...)
	r.invoke = func(c *gin.Context, _ []byte) (any, error) {
		items, err := fn(c)
		if err != nil {
			return nil, err
		}
		keys := make([]string, len(items))
		for i, it := range items {
			keys[i] = keyOf(it)
		}
		from, to, next, err := pageOf(r.op, keys, intQuery(c, "limit"), c.Query("cursor"))
		if err != nil {
			return nil, err
		}
		if next != "" {
			c.Header("Link", nextLink(c.Request.URL, next))
		}
		return items[from:to], nil
	}
	return r
}

// keyFunc reads T's JSON member name as text; a row naming a member T lacks fails at start.
func keyFunc[T any](name string) func(T) string {
	t := reflect.TypeFor[T]()
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); tag == name {
			return func(v T) string { return fmt.Sprint(reflect.ValueOf(v).Field(i).Interface()) }
		}
	}
	panic(fmt.Sprintf("dashboardapi: %s has no JSON member %q to page by", t, name))
}

// cursor is where a page ended: the list it belongs to, the position after its last item and
// that item's key. The next page starts after the item with that key, wherever it is now (items
// added or removed before it do not shift the page); when the item is gone, at the position.
type cursor struct {
	List string `json:"l"`
	Next int    `json:"n"`
	Key  string `json:"k"`
}

func (c cursor) encode() string {
	return base64.RawURLEncoding.EncodeToString(mustJSON(c))
}

func decodeCursor(list, s string) (cursor, error) {
	var c cursor
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(raw, &c)
	}
	if err != nil || c.Next < 1 || c.List != list {
		return cursor{}, badInput("cursor", "query parameter cursor %q is not one this list gave", clipText(s, 40)).
			WithHint(`take the cursor from the Link rel="next" URL of the previous page, or start again without one`)
	}
	return c, nil
}

// pageOf is the part [from, to) of a list of keys that limit and the cursor ask for, and the
// cursor of the next page ("" on the last page).
func pageOf(list string, keys []string, limit int, after string) (from, to int, next string, err error) {
	if after != "" {
		c, err := decodeCursor(list, after)
		if err != nil {
			return 0, 0, "", err
		}
		from = min(c.Next, len(keys))
		if c.Next > len(keys) || keys[c.Next-1] != c.Key {
			for i, k := range keys {
				if k == c.Key {
					from = i + 1
					break
				}
			}
		}
	}
	to = len(keys)
	if limit > 0 && from+limit < len(keys) {
		to = from + limit
		next = cursor{List: list, Next: to, Key: keys[to-1]}.encode()
	}
	return from, to, next, nil
}

// nextLink is the RFC 8288 Link header of the next page: the request's own path and query with
// the cursor replaced, as a reference relative to the server.
func nextLink(u *url.URL, next string) string {
	q := u.Query()
	q.Set("cursor", next)
	return "<" + u.EscapedPath() + "?" + q.Encode() + `>; rel="next"`
}
