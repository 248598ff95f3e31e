// The content policy's host half: output.render's blocks of the five types become wire blocks
// (MCP's field names accepted); another type fails the call instead of being dropped.
import assert from 'node:assert/strict';
import { plugin, test, withCore } from './harness.mjs';

test('rendered images, audio and resources become wire blocks; a video fails the call', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('rich-content', 'index.mjs'));
    assert.equal(a.result?.status, 'ok', JSON.stringify(a.res));
    const r = (await core.callTool(core.handleOf('show_rich'), {})).result;
    assert.deepEqual(r.content, [
      { type: 'text', text: 'a picture and friends' },
      { type: 'image', data: 'iVBORw0KGgo=', mime_type: 'image/png' },
      { type: 'audio', data: 'UklGRg==', mime_type: 'audio/wav' },
      { type: 'resource_link', uri: 'file:///w/notes.txt', name: 'notes.txt', mime_type: 'text/plain' },
      { type: 'resource', uri: 'file:///w/inline.txt', mime_type: 'text/plain', text: 'inline' },
    ]);
    const bad = (await core.callTool(core.handleOf('show_video'), {})).error;
    assert.equal(bad.code, -32000);
    assert.match(bad.message, /render returned content block 1, of type "video"; cwx carries text, image, audio, resource_link and resource blocks/);
  });
});
