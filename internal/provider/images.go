package provider

import (
	"errors"
	"net/http"
	"strings"
)

// imagesUnsupportedMarkers are what servers say when a request's images
// cannot be taken by the model (lower case).
var imagesUnsupportedMarkers = []string{
	"image input is not supported",           // llama.cpp without --mmproj; Groq
	"image_url is only supported by certain", // OpenAI: "Invalid content type. image_url is only supported by certain models."
	"unknown variant `image_url`",            // DeepSeek: "unknown variant `image_url`, expected `text`"
	"not a multimodal model",                 // vLLM
	"does not support image",                 // "does not support image input(s)", "images"
	"does not support vision",                //
	"images are not supported",               //
	"image inputs are not supported",         //
	"support image input",                    // OpenRouter: "No endpoints found that support image input" (a 404)
	"missing data required for image input",  // Ollama: a model without a vision projector
	"vision is not supported",                //
}

// IsImagesUnsupported reports whether err is a request refused because
// the model does not take images: a 400, 404 or 422 whose message says
// so (a 404 is how OpenRouter says no provider of the model takes them).
func IsImagesUnsupported(err error) bool {
	var pe *Error
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.StatusCode {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusUnprocessableEntity:
	default:
		return false
	}
	text := strings.ToLower(pe.Message)
	for _, m := range imagesUnsupportedMarkers {
		if strings.Contains(text, m) {
			return true
		}
	}
	return false
}
