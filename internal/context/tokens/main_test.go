package tokens

import (
	"testing"

	"go.uber.org/goleak"
)

// The tokenizer loads its tables in a goroutine: every test that starts a
// load waits on Ready, and goleak checks that no loader outlives the tests.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
