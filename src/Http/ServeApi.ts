import { Etag, FileSystem, HttpApiBuilder, type HttpApp, HttpPlatform, HttpServer, type HttpServerRequest, Path } from "@effect/platform"
import { Context, Effect, Layer, Scope } from "effect"

/** What the platform itself reads while it serves a request (`HttpRouter.DefaultServices`), and the server. */
const PLATFORM = [HttpServer.HttpServer, Scope.Scope, HttpPlatform.HttpPlatform, Etag.Generator, FileSystem.FileSystem, Path.Path] as const

/**
 * Any service's tag. `any` on purpose: `Context.Tag` is invariant in both parameters, so the tags of different
 * services (Drain, SessionVerifier, ...) share no supertype but this one; what each is stays in `Served`.
 */
type AnyTag = Context.Tag<any, any>

type Served<Tags extends ReadonlyArray<AnyTag>> =
  | Context.Tag.Identifier<(typeof PLATFORM)[number]>
  | Context.Tag.Identifier<Tags[number]>

/**
 * `HttpApiBuilder.serve(middleware)`, but each request's fiber holds only the services read outside the handlers:
 * the platform's and `tags`, which must cover what `middleware` asks for (the compiler checks it). The platform gives
 * every request the whole context the server was built in, here every service of the app, and copies it and compares
 * it whole several times a request (the router, each handler's group, each service provided); the handlers and their
 * middleware keep the context they were built with and need none of it.
 */
export const serveApi = <
  const Tags extends ReadonlyArray<AnyTag>,
  R extends Served<Tags> | HttpServerRequest.HttpServerRequest
>(
  middleware: (app: HttpApp.Default) => HttpApp.Default<never, R>,
  ...tags: Tags
) =>
  Layer.unwrapEffect(Effect.map(HttpApiBuilder.httpApp, (app) =>
    Layer.scopedDiscard(Effect.mapInputContext(
      // As HttpApiBuilder.serve does: the app asks only for the platform's services, which are kept.
      HttpServer.serveEffect(app as HttpApp.Default, middleware),
      (context: Context.Context<Served<Tags>>): Context.Context<Served<Tags>> =>
        Context.unsafeMake(new Map([...PLATFORM, ...tags].map((tag) => [tag.key, Context.unsafeGet(context, tag)])))
    )))).pipe(Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]))
