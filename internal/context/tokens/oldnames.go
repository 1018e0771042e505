package tokens

// The old names of Reading, kept only while internal/loop and internal/tui
// (refactored at the same time, issue 28) and their tests move over. New
// code says Reading; delete this file once nothing uses it.

// Snapshot is the old name of Reading.
//
// Deprecated: use Reading.
type Snapshot = Reading

// Snapshot is the old name of Calculator.Reading.
//
// Deprecated: use Reading.
func (c *Calculator) Snapshot() Reading { return c.Reading() }
