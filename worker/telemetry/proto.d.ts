/** `.proto` files are bundled as text (wrangler.toml [[rules]] type "Text"). */
declare module "*.proto" {
  const text: string;
  export default text;
}
