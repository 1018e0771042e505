package tools

import (
	"context"
	"io/fs"
)

// WalkFiles visits the files under root as grep, glob and ls see them:
// skipping version control data, dependency trees and what .gitignore
// files ignore, in lexical order, symlinks reported and never followed.
// rel is slash-separated and relative to root. Returning fs.SkipAll from
// fn stops the walk. The @file completion lists a directory with it.
func WalkFiles(ctx context.Context, root string, fn func(rel string) error) error {
	return walkFiles(ctx, root, 0, func(_, rel string, _ fs.DirEntry) error { return fn(rel) })
}
