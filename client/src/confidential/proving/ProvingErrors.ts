// A CRS that is there but may not be used: the rule and its error are the contract's (src/Domain/Crs.ts).
export { CrsRefused } from "../../../../src/Domain/Crs.ts"
