// An enum needs generated code: Node.js, which only strips types, cannot load this file.
export enum Color {
  Red = 'red',
  Green = 'green',
}
