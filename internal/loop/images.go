package loop

// Images (issue 17). An image is checked and stored by the caller
// (attachments.Store) and given to SendImages with the message's text; it
// becomes a file part of kind image after the text and the @mentions. A
// model without vision (config.ModelInfo.SendsImages: a catalog row or the
// config saying it takes none; a model nothing describes is tried) is
// refused before anything is stored or sent. The request carries the newest images whole, as data
// URLs read from the store at each step (convert.go); a summary names them.

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctxloop/agent/internal/attachments"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
)

// ErrNoVision is why images are refused for a model without vision.
var ErrNoVision = errors.New("does not take images (no vision: true in the catalog or its models entry in your config)")

// Vision reports whether the session's model takes images.
func (r *Runner) Vision() bool {
	r.state.mu.Lock() // SetModel replaces r.mp under it
	defer r.state.mu.Unlock()
	return r.mp.info.SendsImages()
}

// SendImages gives the session a user message with images attached (each
// made by attachments.Store): SendKind with images, steering the running
// turn when the loop is busy.
func (r *Runner) SendImages(ctx context.Context, text string, images []*message.FileState) error {
	_, err := r.SendKind(ctx, text, message.KindSteer, images...)
	return err
}

// checkImages refuses images a session on model (vision: whether it takes
// images) cannot take: one not from the attachment store, or any for a
// model without vision (ErrNoVision).
func checkImages(images []*message.FileState, model string, vision bool) error {
	for _, f := range images {
		if f == nil || f.Kind != message.AttachImage || f.Store == "" {
			return errors.New("an image not from the attachment store")
		}
	}
	if len(images) > 0 && !vision {
		return fmt.Errorf("model %s %w", model, ErrNoVision)
	}
	return nil
}

// imageParts are the file parts of images, after a user message's text
// and @mentions.
func imageParts(images []*message.FileState) []*message.Part {
	parts := make([]*message.Part, len(images))
	for i, f := range images {
		parts[i] = &message.Part{Type: message.PartFile, File: f}
	}
	return parts
}

// convertOptions are the converter's options for the session's model.
func (sp *stepper) convertOptions() ConvertOptions {
	m := sp.modelPricing()
	info := m.info
	opt := ConvertOptions{ReasoningRoundtrip: info.ReasoningRoundtrip, UnsignedCall: provider.UnsignedCallEcho(m.model)}
	if info.SendsImages() && !sp.visionOff(m.model) {
		opt.ImageURL = attachments.ForDataDir(sp.opt.Config.DataDir).DataURL
	}
	return opt
}
