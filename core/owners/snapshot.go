package owners

import (
	"context"
	"time"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/core/snapshot"
	"github.com/cwx-dev/cwx/core/supervisor"
)

// hostSnapshot finds or builds what host o starts from instead of the bundle as it is: the
// Node startup snapshot (o.Snapshot) or the Bun bytecode cache (o.Bytecode, its folder bound
// read-only into o.Sandbox). A debugged host never does (its inspector flags). A failed build
// is logged and not tried again by this process.
func (l *Layer) hostSnapshot(eh config.ExtensionHost, o *supervisor.Options) {
	if o.Debugged {
		return
	}
	so, why := snapshot.For(l.home, eh, o.Runtime, o.BundleSHA256)
	if why != "" {
		l.log.Debug("host snapshot not used", "host", o.Host().String(), "why", why)
		return
	}
	keyOf, what := snapshot.Key, "host snapshot"
	if so.Kind == runtime.KindBun {
		keyOf, what = snapshot.BytecodeKey, "host bytecode"
	}
	key, err := keyOf(so)
	if err != nil {
		l.log.Debug(what+" not used", "reason", err)
		return
	}
	if _, failed := l.snapFailed.Load(key); failed {
		return
	}
	t0 := time.Now()
	var built bool
	if so.Kind == runtime.KindBun {
		var c *snapshot.Bytecode
		if c, err = snapshot.PrepareBytecode(context.Background(), so); err == nil {
			o.Bytecode, built = c, c.Built
			if o.Sandbox != nil {
				o.Sandbox.Bytecode = c.Dir
			}
		}
	} else {
		var b *snapshot.Blob
		if b, err = snapshot.Prepare(context.Background(), so); err == nil {
			o.Snapshot, built = b, b.Built
		}
	}
	if err != nil {
		l.snapFailed.Store(key, true)
		l.log.Warn(what+" could not be built; hosts start from the bundle", "reason", err)
		return
	}
	if built {
		l.log.Debug(what+" built", "key", key[:12], "ms", time.Since(t0).Milliseconds())
	}
}
