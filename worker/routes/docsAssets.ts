import swaggerPackage from "swagger-ui-dist/package.json" with { type: "json" };

/**
 * Where the docs page's library files are served (by Workers Static Assets, copied there by
 * tools/lib/staticAssets.ts): under the library's version, so a browser may keep them for good.
 */
export const DOCS_ASSETS = `/docs/assets/swagger-ui-${swaggerPackage.version}`;
