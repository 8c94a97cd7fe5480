package dashboardapi

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
)

// etagOf is a strong entity tag over the bytes of an answer: the same bytes, the same tag.
func etagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
}

// etagMatches applies If-None-Match to the current tag with the weak comparison RFC 9110 §13.1.2
// asks for: "*", or any listed tag equal to it once W/ is set aside.
func etagMatches(ifNoneMatch, tag string) bool {
	for _, t := range strings.Split(ifNoneMatch, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == tag {
			return true
		}
	}
	return false
}

// sendConditional answers a read that the dashboard polls: the body with its ETag, or 304 Not
// Modified without a body when the client's If-None-Match still names it. Cache-Control says a
// browser may keep the answer for itself but must ask again each time.
func sendConditional(c *gin.Context, status int, contentType string, body []byte) {
	tag := etagOf(body)
	c.Header("ETag", tag)
	c.Header("Cache-Control", "private, no-cache")
	if inm := c.GetHeader("If-None-Match"); inm != "" && etagMatches(inm, tag) {
		c.Status(http.StatusNotModified)
		return
	}
	c.Data(status, contentType, body)
}
