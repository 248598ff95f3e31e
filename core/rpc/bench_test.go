package rpc

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/protocol"
)

// echoHost answers every request on conn with result, found by a cheap id scan so the
// benchmark measures the peer, not the fake host.
func echoHost(conn *memConn, result string) {
	for {
		select {
		case p := <-conn.toHost:
			i := bytes.Index(p, []byte(`"id":`))
			if i < 0 || bytes.Contains(p, []byte(`"$/cancel"`)) {
				continue
			}
			j := i + 5
			for j < len(p) && p[j] >= '0' && p[j] <= '9' {
				j++
			}
			ans := make([]byte, 0, len(result)+48)
			ans = append(ans, `{"jsonrpc":"2.0","id":`...)
			ans = append(ans, p[i+5:j]...)
			ans = append(ans, `,"result":`...)
			ans = append(ans, result...)
			ans = append(ans, '}')
			select {
			case conn.toCore <- ans:
			case <-conn.closed:
				return
			}
		case <-conn.closed:
			return
		}
	}
}

func toolResult(size int) string {
	return `{"content":[{"type":"text","text":"` + strings.Repeat("x", size) + `"}],"is_error":false}`
}

func benchCalls(b *testing.B, size int, parallel bool) {
	conn := newMemConn()
	p := New(conn, protocol.TierPlugin, &fakeHandler{}, Options{})
	go echoHost(conn, toolResult(size))
	ran := make(chan error, 1)
	go func() { ran <- p.Run(context.Background()) }()
	params := toolCall()
	params.Input = []byte(`{"q":"` + strings.Repeat("y", 64) + `"}`)
	call := func() {
		if _, err := p.Call(context.Background(), protocol.MethodToolCall, params, CallOpts{Timeout: 120e9}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	if parallel {
		b.SetParallelism(8) // 16 callers on 2 cores
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				call()
			}
		})
	} else {
		for b.Loop() {
			call()
		}
	}
	b.StopTimer()
	p.Close(nil)
	<-ran
}

func BenchmarkCall(b *testing.B) {
	for _, size := range []int{1 << 10, 1 << 20} {
		b.Run("result="+strconv.Itoa(size)+"/serial", func(b *testing.B) { benchCalls(b, size, false) })
		b.Run("result="+strconv.Itoa(size)+"/parallel", func(b *testing.B) { benchCalls(b, size, true) })
	}
}
