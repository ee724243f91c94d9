import { createServer } from "node:https";
import express from "express";
import { allowedAnswer, benchTls, listen } from "./common.js";

/**
 * The floor written with express 5 and express.json() (etag and x-powered-by off): what the framework
 * the design card first named would cost before any rule runs.
 * Usage: node .bench-build/bench/servers/express-floor.js CERT_DIR PORT (compiled by bench/run.ts)
 */
const app = express();
app.set("etag", false);
app.set("x-powered-by", false);
app.use(express.json({ limit: "7mb" }));
app.get("/readyz", (_req, res) => {
  res.type("text/plain").send("ok");
});
app.post("/{*path}", (req, res) => {
  res.type("application/json").send(allowedAnswer(req.body));
});
listen(createServer(benchTls(), app));
