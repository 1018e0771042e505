package budget

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// TestLedgerHoldsTheCapUnderConcurrentReservations: 64 goroutines reserve
// at once against a $0.10 cap; whatever the interleaving, spent plus
// reserved never passes the cap, the ones that could not reserve get a
// RefusedError naming the figures, and settling frees the unused part.
func TestLedgerHoldsTheCapUnderConcurrentReservations(t *testing.T) {
	const capUSD, each = 0.10, 0.03
	l := New(capUSD, 0.01)
	var (
		wg              sync.WaitGroup
		granted, refuse atomic.Int32
		over            atomic.Bool
	)
	start := make(chan struct{})
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			r, err := l.Reserve(each)
			if err != nil {
				var re *RefusedError
				if !errors.As(err, &re) || re.CapUSD != capUSD || re.RequestUSD != each {
					t.Errorf("refusal = %#v", err)
				}
				refuse.Add(1)
				return
			}
			granted.Add(1)
			if s, rs := l.Spent(), l.Reserved(); s+rs > capUSD+1e-12 {
				over.Store(true)
			}
			r.Settle(each / 3) // the answer was shorter than max_tokens
			r.Settle(each)     // a second settle changes nothing
		}()
	}
	close(start)
	wg.Wait()
	if over.Load() {
		t.Error("spent + reserved passed the cap")
	}
	if l.Reserved() != 0 {
		t.Errorf("reserved after every settle = %v, want 0", l.Reserved())
	}
	g := granted.Load()
	if g < 3 || refuse.Load() == 0 || g+refuse.Load() != 64 {
		t.Errorf("granted %d, refused %d", g, refuse.Load())
	}
	if want := 0.01 + float64(g)*each/3; !near(l.Spent(), want) || l.Spent() > capUSD {
		t.Errorf("spent = %v, want %v (≤ cap)", l.Spent(), want)
	}
}

func TestLedgerRefusalAndCap(t *testing.T) {
	l := New(0.10, 0)
	a, err := l.Reserve(0.06)
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.Reserve(0.05)
	var re *RefusedError
	if !errors.As(err, &re) || re.SpentUSD != 0 || re.ReservedUSD != 0.06 || re.RequestUSD != 0.05 {
		t.Fatalf("second reservation: %#v", err)
	}
	a.Settle(0.02)
	if _, err := l.Reserve(0.05); err != nil {
		t.Fatalf("after settling the first for less: %v", err)
	}
	// No cap: everything is reserved and counted.
	free := New(0, 0)
	r, err := free.Reserve(1e6)
	if err != nil {
		t.Fatal(err)
	}
	r.Settle(3)
	if free.Spent() != 3 || free.Reserved() != 0 {
		t.Errorf("uncapped ledger: spent %v reserved %v", free.Spent(), free.Reserved())
	}
	// Raising the cap lets the next request through; a nil reservation settles as nothing.
	l.SetCap(1)
	if _, err := l.Reserve(0.5); err != nil || l.Cap() != 1 {
		t.Errorf("after SetCap(1): %v", err)
	}
	var none *Reservation
	none.Settle(1)
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestReserveUpToShrinksTheUnitsToTheCap(t *testing.T) {
	l := New(1.00, 0.20)
	// $0.10 fixed, $0.001 a unit: $0.70 is left for units, 700 of them.
	r, n, err := l.ReserveUpTo(0.10, 0.001, 100, 5000)
	if err != nil || n != 700 {
		t.Fatalf("ReserveUpTo = %d, %v; want 700 units", n, err)
	}
	if got := l.Reserved(); got < 0.799 || got > 0.801 {
		t.Fatalf("reserved $%.3f, want $0.80", got)
	}
	// Nothing left for the floor of another.
	if _, _, err := l.ReserveUpTo(0, 0.001, 1, 10); !errors.Is(err, ErrRefused) {
		t.Fatalf("second ReserveUpTo: %v, want refused", err)
	}
	r.Settle(0.30)
	// All of it when it fits, and without a cap.
	if _, n, err := l.ReserveUpTo(0, 0.001, 1, 10); err != nil || n != 10 {
		t.Fatalf("after settling: %d, %v; want 10", n, err)
	}
	if _, n, err := New(0, 0).ReserveUpTo(5, 1, 1, 1e6); err != nil || n != 1e6 {
		t.Fatalf("no cap: %d, %v; want all", n, err)
	}
	// Fewer than the floor fit: refused, naming the floor's cost.
	var refused *RefusedError
	if _, _, err := New(0.05, 0).ReserveUpTo(0.04, 0.001, 20, 100); !errors.As(err, &refused) || refused.RequestUSD < 0.0599 {
		t.Fatalf("below the floor: %v, want a refusal naming $0.06", err)
	}
}
