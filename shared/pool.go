package shared

import (
	"math/bits"
	"sync"

	"google.golang.org/grpc/mem"
)

// bufferPool is the gRPC buffer pool of both ends. gRPC's default pool zeroes every buffer
// it hands out, over the buffer's whole capacity (a 256 KiB part came from, and cleared, a
// 1 MiB buffer); every buffer gRPC takes from a pool is written before it is read, so this
// one skips that. Buffers come in power-of-two classes from 256 bytes up to the message
// limit.
type bufferPool struct {
	classes [maxClass + 1]sync.Pool
}

const (
	minClass = 8                              // 256 bytes
	maxClass = 26                             // 64 MiB, above MaxMessage
	_        = uint(1<<maxClass - MaxMessage) // compile-time check: MaxMessage fits
)

var pool = &bufferPool{}

var _ mem.BufferPool = pool

// Get returns a buffer of length n; its contents are unspecified.
func (p *bufferPool) Get(n int) *[]byte {
	c := max(bits.Len(uint(n-1)), minClass)
	if n <= 0 {
		c = minClass
	}
	if c > maxClass {
		b := make([]byte, n)
		return &b
	}
	if b, ok := p.classes[c].Get().(*[]byte); ok {
		*b = (*b)[:n]
		return b
	}
	b := make([]byte, n, 1<<c)
	return &b
}

// Put returns a buffer from Get; a buffer whose capacity is not a class size is dropped.
func (p *bufferPool) Put(b *[]byte) {
	c := cap(*b)
	k := bits.Len(uint(c)) - 1
	if k < minClass || k > maxClass || c != 1<<k {
		return
	}
	p.classes[k].Put(b)
}
