package provider

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/provider/providertest"
)

func TestListModelsReadsTheServersList(t *testing.T) {
	srv := providertest.New(t)
	srv.SetModels("qwen2.5-coder", "llama3.1")
	p := NewOpenAI(Config{BaseURL: srv.URL, APIKey: "sk-secret"})
	lister, ok := p.(ModelLister)
	if !ok {
		t.Fatal("the OpenAI provider does not list models")
	}
	got, err := lister.ListModels(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"llama3.1", "qwen2.5-coder"}; !reflect.DeepEqual(got, want) {
		t.Errorf("models %v, want %v (sorted)", got, want)
	}
	reqs := srv.ModelRequests()
	if len(reqs) != 1 || reqs[0].Header.Get("Authorization") != "Bearer sk-secret" {
		t.Fatalf("model requests %+v: want one, with the key", reqs)
	}
	// Cached for the provider's life: a second listing asks nothing.
	if _, err := lister.ListModels(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.ModelRequests()); n != 1 {
		t.Errorf("%d model requests after two listings, want 1 (cached)", n)
	}
}

func TestListModelsFailuresAreClassifiedAndNotCached(t *testing.T) {
	srv := providertest.New(t)
	srv.SetModelsError(http.StatusUnauthorized, "bad key sk-secret")
	p := NewOpenAI(Config{BaseURL: srv.URL, APIKey: "sk-secret"}).(ModelLister)
	_, err := p.ListModels(context.Background())
	var pe *Error
	if !errors.As(err, &pe) || pe.Class != ClassAuth {
		t.Fatalf("err %v, want an authentication *Error", err)
	}
	if strings.Contains(err.Error(), "sk-secret") {
		t.Errorf("the key leaked into %q", err)
	}
	srv.SetModels("llama3.1")
	got, err := p.ListModels(context.Background())
	if err != nil || !reflect.DeepEqual(got, []string{"llama3.1"}) {
		t.Errorf("after the server recovered: %v, %v; want [llama3.1] (a failure is not cached)", got, err)
	}
}

func TestListModelsGivesUpAfterItsTimeout(t *testing.T) {
	srv := providertest.New(t)
	srv.SetModelsHang()
	p := NewOpenAI(Config{BaseURL: srv.URL}).(ModelLister)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := p.ListModels(ctx); err == nil {
		t.Fatal("a server that never answers listed models")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("ListModels took %v after its context's 100 ms deadline", d)
	}
}
