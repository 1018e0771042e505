package provider

import (
	"errors"
	"fmt"
	"testing"
)

// TestIsImagesUnsupported: what servers say when a model takes no images
// is recognised, in a 400, 404 or 422; other refusals are not.
func TestIsImagesUnsupported(t *testing.T) {
	for _, c := range []struct {
		status int
		msg    string
		want   bool
	}{
		{400, "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj", true},
		{400, "Invalid content type. image_url is only supported by certain models.", true},
		{422, "Failed to deserialize the JSON body into the target type: messages[3]: unknown variant `image_url`, expected `text`", true},
		{400, "Qwen/Qwen3-8B is not a multimodal model", true},
		{404, "No endpoints found that support image input", true},
		{400, "maximum context length is 8192 tokens", false},
		{500, "image input is not supported", false},
		{404, "model not found", false},
	} {
		err := fmt.Errorf("step: %w", &Error{Class: ClassBadRequest, StatusCode: c.status, Message: c.msg})
		if got := IsImagesUnsupported(err); got != c.want {
			t.Errorf("%d %q: %v, want %v", c.status, c.msg, got, c.want)
		}
	}
	if IsImagesUnsupported(errors.New("image input is not supported")) {
		t.Error("an error that is not the provider's")
	}
}
