package client

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strconv"

	"github.com/agent-deck/agent-deck/backend"
)

// defaultPageSize is how many items the client asks for per page of a list: large enough that
// most lists are one request, small enough that no answer grows without bound.
const defaultPageSize = 500

// listAll reads a whole list page by page: it asks for PageSize items and follows the Link
// rel="next" URL each page names until a page names none, so nothing is cut off however long the
// list is. A server from before paging refuses limit; the list is then asked for whole.
func listAll[T any](ctx context.Context, c *Client, path string, query url.Values) ([]T, error) {
	q := url.Values{}
	for k, v := range query {
		q[k] = v
	}
	size := c.PageSize
	if size <= 0 {
		size = defaultPageSize
	}
	q.Set("limit", strconv.Itoa(size))
	next := c.BaseURL + "/api/v1" + path + "?" + q.Encode()
	all := []T{}
	for first := true; next != ""; first = false {
		var page []T
		h, err := c.send(ctx, http.MethodGet, next, nil, &page)
		if err != nil && first && refusesLimit(err) {
			var whole []T
			return whole, c.Do(ctx, http.MethodGet, path, query, nil, &whole)
		}
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		if next, err = c.nextPage(h.Values("Link")); err != nil {
			return nil, err
		}
	}
	return all, nil
}

// refusesLimit reports the answer of a server that takes no limit on this list.
func refusesLimit(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Err.Code == backend.CodeInvalidArgument && se.Err.Details["field"] == "limit"
}

var linkNext = regexp.MustCompile(`<([^>]*)>\s*;\s*rel="?next"?`)

// nextPage is the absolute URL of the Link rel="next" target, "" when there is none. It must be
// on the client's own server: the token is never sent anywhere a header points to.
func (c *Client) nextPage(links []string) (string, error) {
	for _, l := range links {
		m := linkNext.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		base, err := url.Parse(c.BaseURL + "/")
		if err != nil {
			return "", err
		}
		ref, err := url.Parse(m[1])
		if err != nil {
			return "", backend.Errorf(backend.CodeInternal, "the server's next page %q is not a URL", m[1])
		}
		u := base.ResolveReference(ref)
		if !SameServer(u.Scheme+"://"+u.Host, base.Scheme+"://"+base.Host) {
			return "", backend.Errorf(backend.CodeInternal, "the server's next page %q is on another server", m[1])
		}
		return u.String(), nil
	}
	return "", nil
}
