package registry

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/protocol"
)

func hook(ref protocol.OwnerRef) *protocol.RegisterParams {
	return &protocol.RegisterParams{Owner: ref, Kind: protocol.KindHook, Spec: protocol.RegisterSpec{Name: HookEvent}}
}

func TestHookAdmission(t *testing.T) {
	r := New(Options{})
	a := active(t, r, "alpha")
	for _, c := range []struct {
		name, desc, want string
	}{
		{HookEvent, "", ""},
		{HookEvent, "checks shell calls", ""},
		{"tools/post-execute", "", "is not one cwx emits"},
		{HookEvent, "two\nlines", "must be one line"},
		{HookEvent, strings.Repeat("x", MaxHookDescription+1), "the limit is 1024"},
	} {
		_, err := r.Register(pluginHost, &protocol.RegisterParams{Owner: a, Kind: protocol.KindHook, Spec: protocol.RegisterSpec{Name: c.name, Description: c.desc}})
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%q %q: %v, want %q", c.name, c.desc, err, c.want)
		}
	}
	if n := len(r.Hooks()); n != 2 {
		t.Fatalf("%d hooks, want 2", n)
	}
}

func TestHookOrderAndWithdrawal(t *testing.T) {
	r := New(Options{})
	b := active(t, r, "beta")
	a := active(t, r, "alpha")
	var handles []uint64
	for _, ref := range []protocol.OwnerRef{b, a, b, a} {
		h, err := r.Register(pluginHost, hook(ref))
		if err != nil {
			t.Fatal(err)
		}
		handles = append(handles, h)
	}
	var got []string
	for _, h := range r.Hooks() {
		got = append(got, fmt.Sprintf("%s/%d", h.PluginID, h.Handle))
	}
	want := []string{
		fmt.Sprintf("alpha/%d", handles[1]), fmt.Sprintf("alpha/%d", handles[3]),
		fmt.Sprintf("beta/%d", handles[0]), fmt.Sprintf("beta/%d", handles[2]),
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("order %v, want %v", got, want)
	}
	if !r.Unregister(pluginHost, &protocol.UnregisterParams{Owner: a, Handle: handles[1]}) {
		t.Fatal("unregister failed")
	}
	if err := r.Revoke(b, pluginHost, "gone"); err != nil {
		t.Fatal(err)
	}
	if hs := r.Hooks(); len(hs) != 1 || hs[0].Handle != handles[3] {
		t.Fatalf("after withdrawal: %+v", hs)
	}
}

func TestHookCaps(t *testing.T) {
	r := New(Options{})
	a := active(t, r, "alpha")
	for i := 0; i < MaxHooksPerOwner; i++ {
		if _, err := r.Register(pluginHost, hook(a)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Register(pluginHost, hook(a)); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "128 hooks, the limit per plugin") {
		t.Fatalf("owner cap: %v", err)
	}
	for i := 1; i < MaxHooksPerHost/MaxHooksPerOwner; i++ {
		o := active(t, r, fmt.Sprintf("p%d", i))
		for j := 0; j < MaxHooksPerOwner; j++ {
			if _, err := r.Register(pluginHost, hook(o)); err != nil {
				t.Fatal(err)
			}
		}
	}
	last := active(t, r, "last")
	if _, err := r.Register(pluginHost, hook(last)); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "1024 hooks, the limit per host") {
		t.Fatalf("host cap: %v", err)
	}
}
