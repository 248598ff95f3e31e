// Fixture: `show_rich` renders one block of every type cwx carries, in MCP's field names
// (mimeType, an embedded resource's `resource`); `show_video` renders a block of a type cwx
// does not carry; `big_image` renders an image over the core's size cap.
export const name = 'fixture-rich-content';
export const inject = ['tools'];

const PNG = 'iVBORw0KGgo=';

const tool = (ctx, name, render) =>
  ctx.tools.register({ name, description: `Rich content: ${name}.`, parameters: { type: 'object' }, output: { render }, async execute() { return { ok: true }; } });

export function apply(ctx) {
  tool(ctx, 'show_rich', () => [
    { type: 'text', text: 'a picture and friends' },
    { type: 'image', data: PNG, mimeType: 'image/png' },
    { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
    { type: 'resource_link', uri: 'file:///w/notes.txt', name: 'notes.txt', mimeType: 'text/plain' },
    { type: 'resource', resource: { uri: 'file:///w/inline.txt', mimeType: 'text/plain', text: 'inline' } },
  ]);
  tool(ctx, 'show_video', () => [{ type: 'video', data: PNG }]);
  tool(ctx, 'big_image', () => [{ type: 'image', data: 'A'.repeat((4 << 20) + 4), mimeType: 'image/png' }]);
}
