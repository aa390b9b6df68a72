package config

import (
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/parleybot/parley/internal/secret"
)

// Redacted renders every key as a "key: value" line in declaration order,
// with secrets masked and any password in a URL hidden. It is meant for
// "what configuration am I running with" output and logs.
func (c *Config) Redacted() string {
	var b strings.Builder
	for _, l := range c.leaves() {
		fmt.Fprintf(&b, "%s: %s\n", l.key, redactedValue(l.field(c)))
	}
	return b.String()
}

func redactedValue(v reflect.Value) string {
	switch x := v.Interface().(type) {
	case secret.Secret:
		return x.String()
	case string:
		// Base URLs may carry credentials (https://user:pass@proxy/).
		if u, err := url.Parse(x); err == nil && u.User != nil {
			x = u.Redacted()
		}
		return strconv.Quote(x)
	case []string:
		q := make([]string, len(x))
		for i, s := range x {
			q[i] = strconv.Quote(s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	default:
		return fmt.Sprint(x)
	}
}
