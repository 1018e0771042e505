package snapshot

// classifylate.go: a first snapshot's paths classified after all. take
// leaves a first snapshot the Go walk listed to goPath.update, whose
// hashPath classifies each file as it opens it (fullstore.go); should git's
// path run instead (the update declined, or too many paths), classifyLate
// does what take's classify would have done first. Contract: it returns
// the paths to add, and appends the others to remove and, with their
// reasons, to skipped, as take does with classify's answers.

// classifyLate is classify (Store.classify) of a first snapshot's update,
// late.
func classifyLate(classify func(string) *Skip, update []string, remove *[]string, skipped *[]Skip) []string {
	classified := classifyAll(classify, update)
	kept := update[:0]
	for _, p := range update {
		skip, ok := classified[p]
		if !ok {
			skip = classify(p)
		}
		switch {
		case skip == nil:
			kept = append(kept, p)
		case skip.Reason != "":
			*skipped = append(*skipped, *skip)
			fallthrough
		default:
			*remove = append(*remove, p)
		}
	}
	return kept
}
