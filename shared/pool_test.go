package shared

import "testing"

// TestBufferPoolClasses checks lengths, power-of-two capacities, reuse, and that buffers
// outside the classes are dropped rather than mixed in.
func TestBufferPoolClasses(t *testing.T) {
	p := &bufferPool{}
	cases := []struct{ n, wantCap int }{
		{0, 256}, {1, 256}, {256, 256}, {257, 512}, {16 << 10, 16 << 10}, {(256 << 10) + 1, 512 << 10},
		{MaxMessage, 64 << 20},
	}
	for _, c := range cases {
		b := p.Get(c.n)
		if len(*b) != c.n || cap(*b) != c.wantCap {
			t.Errorf("Get(%d): len %d cap %d, want len %d cap %d", c.n, len(*b), cap(*b), c.n, c.wantCap)
		}
		p.Put(b)
	}
	b := p.Get(1000)
	(*b)[0] = 7
	p.Put(b)
	if again := p.Get(600); cap(*again) != 1024 {
		t.Errorf("Get(600) after a Put: cap %d, want 1024", cap(*again))
	}
	odd := make([]byte, 300)
	p.Put(&odd) // not a class size: dropped
	if got := p.Get(300); cap(*got) != 512 {
		t.Errorf("Get(300): cap %d, want 512", cap(*got))
	}
	if huge := p.Get((64 << 20) + 1); len(*huge) != (64<<20)+1 {
		t.Errorf("Get above the largest class: len %d", len(*huge))
	}
}
