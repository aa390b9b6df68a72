package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// Values as Import converts and compares them. A column's kind here
// decides both: how a SQLite value (int64, float64, string, []byte or nil)
// is written into it, and the canonical form its value takes on either
// side for the checksums — the same logical value, read from either
// engine, renders to the same bytes:
//
//	time   unix milliseconds; in a nullable column 0 is NULL, as the
//	       stores read it (a zero time), so SQLite's 0 and PostgreSQL's
//	       NULL agree
//	bool   0 or 1
//	JSON   re-encoded with sorted keys and no insignificant space (jsonb
//	       normalises its input)
//	text   with NUL as U+FFFD, which PostgreSQL stores in its stead
//	       (textOnly); invalid UTF-8 fails the copy
//	int, bytes as they are

// toPostgres converts a SQLite value for column c.
func toPostgres(c column, v any) (any, error) {
	if v == nil {
		if c.kind == kindBytes && !c.nullable {
			return []byte{}, nil // SQLite may return an empty blob as NULL
		}
		return nil, nil
	}
	switch c.kind {
	case kindInt:
		return asInt(v)
	case kindTime:
		ms, err := asInt(v)
		if err != nil || (ms == 0 && c.nullable) {
			return nil, err
		}
		return time.UnixMilli(ms).UTC(), nil
	case kindBool:
		n, err := asInt(v)
		if err == nil && n != 0 && n != 1 {
			err = fmt.Errorf("%d is not a boolean (0 or 1)", n)
		}
		return n == 1, err
	case kindJSON:
		b := asBytes(v)
		if !json.Valid(b) {
			return nil, fmt.Errorf("not valid JSON: %.40q", b)
		}
		return json.RawMessage(b), nil
	case kindText:
		return textOnly(string(asBytes(v))), nil
	case kindBytes:
		return slices.Clone(asBytes(v)), nil
	}
	return nil, fmt.Errorf("kind %d cannot be copied", c.kind)
}

// asInt reads an integer as SQLite returns it.
func asInt(v any) (int64, error) {
	switch v := v.(type) {
	case int64:
		return v, nil
	case int32:
		return int64(v), nil
	case int16:
		return int64(v), nil
	case float64:
		if v == float64(int64(v)) {
			return int64(v), nil
		}
	case string:
		return strconv.ParseInt(v, 10, 64)
	}
	return 0, fmt.Errorf("%T %v is not an integer", v, v)
}

// asBytes reads text or a blob as SQLite returns it.
func asBytes(v any) []byte {
	switch v := v.(type) {
	case string:
		return []byte(v)
	case []byte:
		return v
	}
	return fmt.Append(nil, v)
}

// Tags of canonical values: what a NULL, an integer and the rest render
// as can never be confused.
const (
	tagNull  = 'N'
	tagInt   = 'I'
	tagBool  = 'B'
	tagJSON  = 'J'
	tagText  = 'T'
	tagBytes = 'X'
)

// canonical appends c's value v, read from either engine, in canonical
// form to dst: a tag, the length and the bytes.
func canonical(dst []byte, c column, v any) ([]byte, error) {
	tag, data, err := canonicalValue(c, v)
	if err != nil {
		return nil, fmt.Errorf("column %s: %w", c.name, err)
	}
	dst = append(dst, tag)
	dst = strconv.AppendInt(dst, int64(len(data)), 10)
	dst = append(dst, ':')
	return append(dst, data...), nil
}

func canonicalValue(c column, v any) (byte, []byte, error) {
	if v == nil {
		return tagNull, nil, nil
	}
	switch c.kind {
	case kindInt:
		n, err := asInt(v)
		return tagInt, strconv.AppendInt(nil, n, 10), err
	case kindTime:
		var ms int64
		if t, ok := v.(time.Time); ok {
			ms = t.UnixMilli()
		} else if n, err := asInt(v); err != nil {
			return 0, nil, err
		} else if ms = n; ms == 0 && c.nullable {
			return tagNull, nil, nil
		}
		return tagInt, strconv.AppendInt(nil, ms, 10), nil
	case kindBool:
		b, ok := v.(bool)
		if !ok {
			n, err := asInt(v)
			if err != nil {
				return 0, nil, err
			}
			return tagBool, strconv.AppendInt(nil, n, 10), nil
		}
		if b {
			return tagBool, []byte("1"), nil
		}
		return tagBool, []byte("0"), nil
	case kindJSON:
		j, err := canonicalJSON(asBytes(v))
		return tagJSON, j, err
	case kindText:
		return tagText, []byte(textOnly(string(asBytes(v)))), nil
	case kindBytes:
		return tagBytes, asBytes(v), nil
	}
	return 0, nil, fmt.Errorf("kind %d has no canonical form", c.kind)
}

// canonicalJSON re-encodes a JSON text: object keys sorted, numbers as
// written, no insignificant space.
func canonicalJSON(b []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	var out bytes.Buffer
	e := json.NewEncoder(&out)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil
}

// deriver returns what makes, for a copied table, its derived tsv
// column; nil for a table without one.
func deriver(table string) func(ctx context.Context, tx pgx.Tx, t store.Table) (func(src, dst []any) error, error) {
	switch table {
	case "kb_chunks":
		return passageIndex
	case "messages":
		return messageIndex
	}
	return nil
}

// messageIndex returns what derives messages.tsv for a copied message, as
// writeMessages writes it: NULL for a message with nothing to index. The
// sessions, whose chats the index names, are read from this database,
// copied before their messages.
func messageIndex(ctx context.Context, tx pgx.Tx, t store.Table) (func(src, dst []any) error, error) {
	body, session := slices.Index(t.Columns, "body"), slices.Index(t.Columns, "session_id")
	if body < 0 || session < 0 {
		return nil, fmt.Errorf("messages lacks body or session_id")
	}
	rows, err := tx.Query(ctx, `SELECT id, platform, space, chat FROM sessions`)
	if err != nil {
		return nil, err
	}
	chats := map[string]store.Place{}
	var (
		id string
		c  store.Place
	)
	if _, err := pgx.ForEachRow(rows, []any{&id, &c.Platform, &c.Space, &c.Chat}, func() error {
		chats[id] = c
		return nil
	}); err != nil {
		return nil, err
	}
	tsvIndex := len(t.Columns)
	return func(src, dst []any) error {
		m, err := rowdata.DecodeMessage(asBytes(src[body]))
		if err != nil {
			return err
		}
		dst[tsvIndex] = nil
		if lit := messageTSV(m, chats[string(asBytes(src[session]))]); lit != nil {
			var tsv pgtype.TSVector
			if err := tsv.Scan(*lit); err != nil {
				return fmt.Errorf("tsvector: %w", err)
			}
			dst[tsvIndex] = tsv
		}
		return nil
	}, nil
}

// passageIndex returns what derives kb_chunks.tsv for a copied passage,
// as PutDocument builds it (agent/kb's Ingest): the passage's index text
// weighted A and B, its document's title and source C. The documents are
// read from this database, copied before their passages.
func passageIndex(ctx context.Context, tx pgx.Tx, t store.Table) (func(src, dst []any) error, error) {
	text, doc := slices.Index(t.Columns, "text"), slices.Index(t.Columns, "doc_id")
	if text < 0 || doc < 0 {
		return nil, fmt.Errorf("kb_chunks lacks text or doc_id")
	}
	rows, err := tx.Query(ctx, `SELECT id, title, source FROM kb_documents`)
	if err != nil {
		return nil, err
	}
	heads := map[int64]string{}
	var id int64
	var title, source string
	if _, err := pgx.ForEachRow(rows, []any{&id, &title, &source}, func() error {
		heads[id] = docHead(title, source)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read documents: %w", err)
	}
	tsvIndex := len(t.Columns)
	return func(src, dst []any) error {
		docID, err := asInt(src[doc])
		if err != nil {
			return err
		}
		head, ok := heads[docID]
		if !ok {
			return fmt.Errorf("passage of document %d, which does not exist", docID)
		}
		var tsv pgtype.TSVector
		if err := tsv.Scan(passageLiteral(string(asBytes(src[text])), head)); err != nil {
			return fmt.Errorf("tsvector: %w", err)
		}
		dst[tsvIndex] = tsv
		return nil
	}, nil
}

// docHead is the index text of a document's name, as agent/kb's Ingest
// writes it for each of its passages.
func docHead(title, source string) string {
	head, _ := kb.IndexText(title + " " + source)
	return head
}

// passageLiteral is the tsvector literal of a passage of the document
// whose docHead is head.
func passageLiteral(text, head string) string {
	body, uni := kb.IndexText(text)
	return tsvectorLiteral(body, uni, head)
}
