package main

// The queue in the JSON event stream (`agent run --format json`). Every
// event about queued messages names them, so a driver that queued
// messages (`agent steer`, --stdin-steer) can tell which were delivered:
//
//   - queued {id, kind, text, images, count}: one per message, when it is
//     first seen in the queue (one queued by another process is seen at
//     the step that delivers it);
//   - dequeued {ids, count, delivered, message_id}: messages that left the
//     queue; delivered, with the user message that carries them, or taken
//     back (an interrupt, an edit);
//   - steered {ids, message_id}: they were injected into the running turn;
//   - merged {ids, message_id}: two or more were coalesced into one
//     message, in the order of ids.
//
// count is always the queue's length after the event.

import (
	"slices"

	"github.com/ctxloop/agent/internal/message"
)

// queueChanged reports a new state of the queue: the messages not seen
// before as queued, those gone (not delivered) as dequeued.
func (w *eventWriter) queueChanged(queue []message.QueuedMessage) {
	if w.known == nil {
		w.known = map[string]bool{}
	}
	in := make(map[string]bool, len(queue))
	var added []message.QueuedMessage
	for _, q := range queue {
		in[q.ID] = true
		if !w.known[q.ID] {
			added = append(added, q)
		}
	}
	var gone []string
	for id := range w.known {
		if !in[id] {
			gone = append(gone, id)
		}
	}
	slices.Sort(gone) // ids are time-ordered
	w.queued = len(queue)
	if len(gone) > 0 {
		for _, id := range gone {
			delete(w.known, id)
		}
		if w.json {
			w.emit(map[string]any{"type": "dequeued", "count": len(queue), "ids": gone, "delivered": false})
		}
	}
	for _, q := range added {
		w.known[q.ID] = true
		if !w.json {
			continue
		}
		kind := q.Kind
		if kind == "" {
			kind = message.KindSteer
		}
		images := make([]string, len(q.Images))
		for i, f := range q.Images {
			images[i] = f.Path
		}
		w.emit(map[string]any{"type": "queued", "count": len(queue), "id": q.ID, "kind": kind, "text": q.Text, "images": images})
	}
}

// delivered reports queued messages delivered as one user message.
func (w *eventWriter) delivered(d *message.QueueDelivery) {
	if d == nil {
		return
	}
	for _, id := range d.IDs {
		if w.known[id] {
			delete(w.known, id)
			w.queued--
		}
	}
	w.queued = max(w.queued, 0)
	if !w.json {
		return
	}
	w.emit(map[string]any{"type": "dequeued", "count": w.queued, "ids": d.IDs, "delivered": true, "message_id": d.MessageID})
	if d.Steered {
		w.emit(map[string]any{"type": "steered", "ids": d.IDs, "message_id": d.MessageID})
	}
	if len(d.IDs) > 1 {
		w.emit(map[string]any{"type": "merged", "ids": d.IDs, "message_id": d.MessageID})
	}
}
