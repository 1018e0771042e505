package pubsub

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// collect reads ch until it is closed or the deadline passes.
func collect[T any](t *testing.T, ch <-chan T) []T {
	t.Helper()
	var got []T
	deadline := time.After(10 * time.Second)
	for {
		select {
		case v, ok := <-ch:
			if !ok {
				return got
			}
			got = append(got, v)
		case <-deadline:
			t.Fatalf("channel not closed after 10s; got %d values", len(got))
		}
	}
}

func TestPublishDeliversEverythingInOrder(t *testing.T) {
	tests := []struct {
		name        string
		subscribers int
		values      int
		readLate    bool // subscribers read only after everything is published
	}{
		{"one reader", 1, 100, false},
		{"three readers", 3, 1000, false},
		{"reader far behind", 2, 5000, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New[int]()
			ctx := t.Context()
			chans := make([]<-chan int, tt.subscribers)
			for i := range chans {
				chans[i] = b.Subscribe(ctx)
			}
			results := make([][]int, tt.subscribers)
			var wg sync.WaitGroup
			read := func() {
				for i, ch := range chans {
					wg.Go(func() { results[i] = collect(t, ch) })
				}
			}
			if !tt.readLate {
				read()
			}
			for v := range tt.values {
				b.Publish(v) // must return although nobody reads yet when readLate
			}
			b.Close()
			if tt.readLate {
				read()
			}
			wg.Wait()
			for i, got := range results {
				if len(got) != tt.values {
					t.Fatalf("subscriber %d got %d values, want %d", i, len(got), tt.values)
				}
				for j, v := range got {
					if v != j {
						t.Fatalf("subscriber %d: value %d is %d", i, j, v)
					}
				}
			}
		})
	}
}

func TestPublishLossyDropsOnlyForSlowSubscriber(t *testing.T) {
	b := New[int]()
	ctx := t.Context()
	slow := b.Subscribe(ctx)
	fast := b.Subscribe(ctx)

	// fast reads every value as it comes; each lossy publish waits until
	// fast has it, so fast is never behind.
	fastGot := make(chan int)
	done := make(chan []int)
	go func() {
		var got []int
		for v := range fast {
			got = append(got, v)
			fastGot <- v
		}
		done <- got
	}()
	const lossy = 3 * LossyLimit
	for v := range lossy {
		b.PublishLossy(v)
		<-fastGot
	}
	b.Publish(-1) // must-deliver after the drops
	<-fastGot
	b.Close()

	slowGot := collect(t, slow)
	fastAll := <-done
	if len(fastAll) != lossy+1 {
		t.Errorf("fast subscriber got %d values, want %d", len(fastAll), lossy+1)
	}
	// The slow one holds at most LossyLimit queued plus one in flight.
	if len(slowGot) > LossyLimit+2 || len(slowGot) < LossyLimit {
		t.Errorf("slow subscriber got %d values, want about %d", len(slowGot), LossyLimit)
	}
	if last := slowGot[len(slowGot)-1]; last != -1 {
		t.Errorf("slow subscriber's last value = %d, want the must-deliver -1", last)
	}
	for i := 1; i < len(slowGot)-1; i++ {
		if slowGot[i] <= slowGot[i-1] {
			t.Fatalf("slow subscriber out of order at %d: %v", i, slowGot[i-1:i+1])
		}
	}
}

func TestMixedPublishKeepsOrder(t *testing.T) {
	b := New[int]()
	ch := b.Subscribe(t.Context())
	var wg sync.WaitGroup
	var got []int
	wg.Go(func() { got = collect(t, ch) })
	for v := range 2000 {
		if v%3 == 0 {
			b.Publish(v)
		} else {
			b.PublishLossy(v)
		}
	}
	b.Close()
	wg.Wait()
	seen := make(map[int]bool)
	for i, v := range got {
		if i > 0 && v <= got[i-1] {
			t.Fatalf("out of order at %d: %d after %d", i, v, got[i-1])
		}
		seen[v] = true
	}
	for v := 0; v < 2000; v += 3 {
		if !seen[v] {
			t.Fatalf("must-deliver value %d missing", v)
		}
	}
}

func TestSubscriptionEndsWithContext(t *testing.T) {
	b := New[string]()
	defer b.Close()
	ctx, cancel := context.WithCancel(t.Context())
	ch := b.Subscribe(ctx)
	b.Publish("queued but never read")
	cancel()
	for range ch { // must be closed, possibly after the queued value
	}
	// The broker forgets the subscriber.
	deadline := time.Now().Add(5 * time.Second)
	for {
		b.mu.RLock()
		n := len(b.subs)
		b.mu.RUnlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("broker still holds %d subscribers", n)
		}
		time.Sleep(time.Millisecond)
	}
	b.Publish("after unsubscribe") // no panic, nobody to deliver to
}

func TestClosedBroker(t *testing.T) {
	b := New[int]()
	b.Close()
	b.Close() // idempotent
	b.Publish(1)
	b.PublishLossy(2)
	if got := collect(t, b.Subscribe(t.Context())); len(got) != 0 {
		t.Fatalf("subscription to a closed broker got %v", got)
	}
}

func TestConcurrentPublishers(t *testing.T) {
	b := New[[2]int]()
	ch := b.Subscribe(t.Context())
	var got [][2]int
	var readers sync.WaitGroup
	readers.Go(func() { got = collect(t, ch) })
	const publishers, each = 4, 500
	var wg sync.WaitGroup
	for p := range publishers {
		wg.Go(func() {
			for i := range each {
				b.Publish([2]int{p, i})
			}
		})
	}
	wg.Wait()
	b.Close()
	readers.Wait()
	if len(got) != publishers*each {
		t.Fatalf("got %d values, want %d", len(got), publishers*each)
	}
	next := make([]int, publishers)
	for _, v := range got {
		if v[1] != next[v[0]] {
			t.Fatalf("publisher %d: got %d, want %d", v[0], v[1], next[v[0]])
		}
		next[v[0]]++
	}
}

func BenchmarkPublish(b *testing.B) {
	br := New[int]()
	ch := br.Subscribe(b.Context())
	done := make(chan struct{})
	go func() {
		for range ch {
		}
		close(done)
	}()
	for i := 0; b.Loop(); i++ {
		br.Publish(i)
	}
	br.Close()
	<-done
}
