package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/parleybot/parley/chat"
)

// Bindings admins make in chat (/agent use NAME): each binds a channel or
// chat, kept in the KV store under one key as a JSON map of place to
// agent, so `parley agents ls` lists them with one read. A stored binding
// wins over a configured one of the same place; a more specific
// configured place (a Telegram topic) still wins over it.

// storedBindingsKey is where the stored bindings are kept.
const storedBindingsKey = "agents:bindings"

// StoredBindings are the bindings admins made in chat, by place as
// written (chat.PlaceSet.String) to agent name.
func StoredBindings(ctx context.Context, kv chat.KV) (map[string]string, error) {
	raw, ok, err := kv.Get(ctx, storedBindingsKey)
	if err != nil || !ok || raw == "" {
		return map[string]string{}, err
	}
	m := map[string]string{}
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return nil, fmt.Errorf("stored bindings: %w", err)
	}
	return m, nil
}

// storedBindings are StoredBindings parsed, in a stable order; a place
// that no longer parses is skipped.
func (r *Router) storedBindings(ctx context.Context) ([]Binding, error) {
	m, err := StoredBindings(ctx, r.cfg.KV)
	if err != nil {
		return nil, err
	}
	var out []Binding
	for _, place := range slices.Sorted(maps.Keys(m)) {
		if p, err := chat.ParsePlaceSet(place); err == nil {
			out = append(out, Binding{Place: p, Agent: m[place], Stored: true})
		}
	}
	return out, nil
}

// storeBinding binds place to agent, or with agent "" unbinds it.
func (r *Router) storeBinding(ctx context.Context, place chat.PlaceSet, agent string) error {
	r.bindMu.Lock()
	defer r.bindMu.Unlock()
	m, err := StoredBindings(ctx, r.cfg.KV)
	if err != nil {
		return err
	}
	if agent == "" {
		delete(m, place.String())
	} else {
		m[place.String()] = agent
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return r.cfg.KV.Set(ctx, storedBindingsKey, string(b))
}
