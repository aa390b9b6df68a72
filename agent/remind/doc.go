// Package remind is the durable core of reminders and scheduled runs: what
// an item is, how a time or a recurrence is parsed (strictly: a clear
// refusal rather than a guess), when an item is due and what to do about
// an occurrence that was missed, and the one background Loop that claims
// due items and hands them to the bot for delivery.
//
// Times are kept in UTC; recurrences are evaluated in the person's zone
// (Item.Zone), so "0 9 * * *" stays at 09:00 local across daylight-saving
// changes. The package embeds the IANA time zone database (time/tzdata),
// so zones load in a container without one.
//
// The flow, durable at every step:
//
//	AddItem (store) ──▶ Loop wakes at the earliest Next (or on Wake)
//	  ──▶ Store.ClaimDue: one transaction records a claim per due item
//	      (item, occurrence) and advances the item (next occurrence, or
//	      done for a one-off)
//	  ──▶ Deliver(claim): the bot posts through its outbox, keyed by
//	      Claim.Key, or queues the scheduled turn
//	  ──▶ Store.ClaimDelivered
//
// A crash between the claim and ClaimDelivered leaves the claim pending;
// the next Loop delivers it again first thing, which is why Deliver must
// be idempotent per Claim.Key.
//
// This package knows nothing of chat platforms: it does not import bot.
package remind
