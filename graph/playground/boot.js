// Starts GraphiQL in #graphiql against the GraphQL endpoint the page names
// in data-endpoint: queries and mutations are POSTed to it, subscriptions
// use a websocket to the same path. The headers pane's headers go with
// every request and, for subscriptions, in the websocket's connection_init
// payload, which is where the server reads the API key of a browser socket.
(function () {
  'use strict';

  var root = document.getElementById('graphiql');
  var url = new URL(root.dataset.endpoint, window.location.href);
  var socket = new URL(url.href);
  socket.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';

  var defaultQuery = [
    '# Lending pipeline GraphQL.',
    '#',
    '# Put your API key in the Headers pane below:',
    '#   {"Authorization": "Bearer svc_live_..."}',
    '# then write a query (Ctrl-Space completes, the Docs pane lists the',
    '# schema) and run it with Ctrl-Enter.',
    ''
  ].join('\n');

  var fetcher = GraphiQL.createFetcher({ url: url.href, subscriptionUrl: socket.href });

  // GraphiQL asks for the schema as it starts, before its headers pane
  // has read the saved headers, so that first request would go without
  // the key and the docs and completion would stay empty. A request that
  // carries no headers gets the saved ones.
  function withSavedHeaders(params, options) {
    if (options && options.headers) {
      return fetcher(params, options);
    }
    var saved = null;
    try {
      saved = JSON.parse(window.localStorage.getItem('graphiql:headers') || 'null');
    } catch (e) {
      saved = null; // not JSON: GraphiQL reports that itself
    }
    return fetcher(params, Object.assign({}, options, saved && typeof saved === 'object' ? { headers: saved } : {}));
  }

  ReactDOM.createRoot(root).render(
    React.createElement(GraphiQL, {
      fetcher: withSavedHeaders,
      defaultQuery: defaultQuery,
      defaultEditorToolsVisibility: 'headers',
      isHeadersEditorEnabled: true,
      // The key stays in this browser's storage across reloads, as the
      // query tabs do.
      shouldPersistHeaders: true
    })
  );
})();
