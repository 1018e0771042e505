package message

// PartFile is an attachment of a user message: a file or a directory
// listing an @mention resolved when the message was sent, the output of a
// !command, or an image. Its state is in Part.File.
const PartFile PartType = "file"

// Attachment kinds (FileState.Kind).
const (
	AttachFile    = "file"    // @path: the read tool's output
	AttachDir     = "dir"     // @dir/: the ls tool's listing
	AttachCommand = "command" // !command: the bash tool's output
	AttachImage   = "image"   // an image (--image, a pasted path, the clipboard)
	// AttachEnv is not the user's: the agent's note of the environment
	// as it is at the start of a turn (the git status, when it changed
	// since the model last saw it), sent with the turn's message.
	AttachEnv = "env"
)

// FileState is the state of a file part.
type FileState struct {
	Kind string `json:"kind"`
	// Path is the mention as typed (relative to the session's directory),
	// or the command of a !command.
	Path string `json:"path"`
	// Content is what the model is given: the tool's output, with its
	// truncation notice when cut.
	Content   string `json:"content,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	// Count is what a chip counts: the file's lines (all of them, when
	// only some were attached) or the listing's entries; 0 when unknown
	// (an attachment stored before it was recorded).
	Count int `json:"count,omitempty"`
	// Error says why nothing was attached (a binary, missing or refused
	// file); the model is told so, and the chip shows it.
	Error string `json:"error,omitempty"`
	// IsError marks a !command that failed (its output is still given).
	IsError bool `json:"is_error,omitempty"`

	// An image's fields (Kind AttachImage); Path is then its file name.
	// Store is where its bytes are, relative to the data dir's attachment
	// store (attachments.Store): the image is stored once, by content.
	Store     string `json:"store,omitempty"`
	MIME      string `json:"mime,omitempty"`
	SizeBytes int64  `json:"size_bytes,omitempty"`
	// Width and Height are in pixels, 0 when unknown.
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
}
