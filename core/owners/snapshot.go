package owners

import (
	"context"
	"time"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/snapshot"
	"github.com/cwx-dev/cwx/core/supervisor"
)

// hostSnapshot finds or builds the snapshot host o starts from, nil when it starts from the
// bundle. A debugged host never does (its inspector flags). A failed build is logged and not
// tried again by this process.
func (l *Layer) hostSnapshot(eh config.ExtensionHost, o *supervisor.Options) *snapshot.Blob {
	if o.Debugged {
		return nil
	}
	so, why := snapshot.For(l.home, eh, o.Runtime, o.BundleSHA256)
	if why != "" {
		l.log.Debug("host snapshot not used", "host", o.Host().String(), "why", why)
		return nil
	}
	key, err := snapshot.Key(so)
	if err != nil {
		l.log.Debug("host snapshot not used", "reason", err)
		return nil
	}
	if _, failed := l.snapFailed.Load(key); failed {
		return nil
	}
	t0 := time.Now()
	b, err := snapshot.Prepare(context.Background(), so)
	if err != nil {
		l.snapFailed.Store(key, true)
		l.log.Warn("host snapshot could not be built; hosts start from the bundle", "reason", err)
		return nil
	}
	if b.Built {
		l.log.Debug("host snapshot built", "key", key[:12], "bytes", b.Size, "ms", time.Since(t0).Milliseconds())
	}
	return b
}
