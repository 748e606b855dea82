// One copy of the statement helpers, shared with the worker (its airspace sync writes the same SQL).
export { inline, type Statement } from "../../worker/store/statements";
