// Package gfm is a Markdown parser for CommonMark plus GitHub's extensions:
// tables, strikethrough, task list items and bare URLs as links. It is
// our own, so that no Markdown library (and no library's package init)
// is in the binary.
//
// The contract: Parse returns the document tree of a text (Node, whose
// Kind says which fields mean something); text in it is resolved —
// backslash escapes and entity references decoded, link reference
// definitions applied and removed. Blocks and inlines follow the
// CommonMark specification (https://spec.commonmark.org/0.31.2/) with
// these differences: named entity references are a common subset of
// HTML's (entities.go), others stay text; a link destination nests
// parentheses at most 32 deep. The extensions follow the GFM
// specification (https://github.github.com/gfm/) with these differences:
// bare e-mail addresses are not links; a domain with an underscore in its
// last two labels is still linked; a table is made from a finished
// paragraph, so it ends where the paragraph does (a line of '=' right
// under its rows ends it, where GFM makes that line a row).
//
// The oracle: spec_test.go runs every example of both specs
// (testdata/spec) through a test-only HTML renderer, and FuzzDifferential
// compares documents with goldmark's rendering (differential_test.go
// lists the classes of difference it accepts: the ones above, and where
// goldmark departs from the specs). The examples that differ, each for a
// reason above:
//
//	CommonMark 25       &Dcaron; and other named references outside the subset stay text
//	CommonMark 608, 611 a bare URL is a link (the extension is always on)
//	GFM 629, 630, 631   a bare e-mail address is not a link
//
// Time is linear in the input on every text: every byte is looked at a
// bounded number of times, with no regular expression, nothing rescanned
// after a failed match (emphasis keeps CommonMark's openers_bottom, code
// spans an index of backtick runs, raw HTML what has no end), and a
// bounded number of times per open container on each line. Nothing is
// built at package init: the tables are sorted arrays searched by
// binary search. Parse is safe for concurrent use; its state lives in
// each call.
package gfm
