// Starts GraphiQL in #graphiql against the GraphQL endpoint the page names
// in data-endpoint: queries and mutations are POSTed to it, subscriptions
// use a websocket to the same path.
//
// The API key: signing in on the console (data-sign-in) stores the key in
// this tab's sessionStorage under the name in data-key-storage
// ("svc.console.apiKey", the name console/app/key.js uses), and the
// playground sends it as "Authorization: Bearer <key>" on every request
// that carries no headers of its own, and in the websocket's
// connection_init payload, which is where the server reads the key of a
// browser socket. The headers pane can still name another key.
//
// A person signed in to the console with email and password (or single
// sign-on) holds a session cookie instead: without a key, the playground
// asks /auth/session for the session's CSRF token and sends it as
// X-CSRF-Token on every request; the cookie goes by itself, on requests
// and on the websocket's upgrade.
(function () {
  'use strict';

  var root = document.getElementById('graphiql');
  var url = new URL(root.dataset.endpoint, window.location.href);
  var socket = new URL(url.href);
  socket.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';

  function storedKey() {
    try {
      return window.sessionStorage.getItem(root.dataset.keyStorage) || '';
    } catch (e) {
      return ''; // storage disabled: the headers pane remains
    }
  }

  function savedHeaders() {
    try {
      var saved = JSON.parse(window.localStorage.getItem('graphiql:headers') || 'null');
      return saved && typeof saved === 'object' ? saved : null;
    } catch (e) {
      return null; // not JSON: GraphiQL reports that itself
    }
  }

  function hasAuthorization(headers) {
    return !!headers && Object.keys(headers).some(function (k) {
      return k.toLowerCase() === 'authorization' && headers[k];
    });
  }

  var key = storedKey();
  var auth = key ? { Authorization: 'Bearer ' + key } : null;
  var session = false;

  // Without a key from the console or the headers pane, the browser's
  // session carries the requests; without one either, every request (the
  // schema's introspection first) would be refused: say how to sign in
  // instead, and start GraphiQL only when asked to.
  if (auth || hasAuthorization(savedHeaders())) {
    start();
  } else {
    fetch('/auth/session', { credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then(function (res) { return res.ok ? res.json() : null; })
      .then(function (s) {
        if (s && s.csrfToken) {
          auth = { 'X-CSRF-Token': s.csrfToken };
          session = true;
          start();
        } else {
          showSignIn();
        }
      }, showSignIn);
  }

  function showSignIn() {
    root.textContent = '';
    var box = document.createElement('div');
    box.className = 'sign-in';
    var h = document.createElement('h1');
    h.textContent = 'Sign in to use the GraphQL playground';
    var p = document.createElement('p');
    p.appendChild(document.createTextNode('Sign in on the '));
    var a = document.createElement('a');
    a.href = root.dataset.signIn;
    a.textContent = 'console';
    p.appendChild(a);
    p.appendChild(document.createTextNode(', then come back here: the playground uses your session, or the API key the console holds in the same tab.'));
    var q = document.createElement('p');
    q.textContent = 'Or open the playground without a key and put one in its Headers pane: {"Authorization": "Bearer svc_live_..."}.';
    var b = document.createElement('button');
    b.type = 'button';
    b.textContent = 'Open the playground without signing in';
    b.addEventListener('click', start);
    box.appendChild(h);
    box.appendChild(p);
    box.appendChild(q);
    box.appendChild(b);
    root.appendChild(box);
  }

  function start() {
    root.textContent = '';
    var defaultQuery = [
      '# Lending pipeline GraphQL.',
      '#',
      session ? '# Signed in with your session; the Headers pane may name an API key instead:'
        : auth ? '# Signed in with the console\'s API key; the Headers pane may name another:'
          : '# Put your API key in the Headers pane below:',
      '#   {"Authorization": "Bearer svc_live_..."}',
      '# then write a query (Ctrl-Space completes, the Docs pane lists the',
      '# schema) and run it with Ctrl-Enter.',
      '',
      '{ organization { id name } }',
      ''
    ].join('\n');

    var fetcher = GraphiQL.createFetcher({
      url: url.href,
      subscriptionUrl: socket.href,
      wsConnectionParams: function () {
        // A session's socket needs nothing here: its upgrade carries the cookie.
        var headers = Object.assign({}, auth || {}, savedHeaders() || {});
        return hasAuthorization(headers) ? { Authorization: headerValue(headers) } : {};
      }
    });

    function headerValue(headers) {
      var k = Object.keys(headers).filter(function (n) { return n.toLowerCase() === 'authorization'; })[0];
      return headers[k];
    }

    // GraphiQL asks for the schema as it starts, before its headers pane
    // has read the saved headers, so that first request would go without
    // the key and the docs and completion would stay empty. A request gets
    // the saved headers, then the console's key, under its own.
    function withKey(params, options) {
      var own = Object.assign({}, savedHeaders() || {}, (options && options.headers) || {});
      var headers = hasAuthorization(own) ? own : Object.assign({}, auth || {}, own);
      return fetcher(params, Object.assign({}, options, { headers: headers }));
    }

    ReactDOM.createRoot(root).render(
      React.createElement(GraphiQL, {
        fetcher: withKey,
        defaultQuery: defaultQuery,
        defaultEditorToolsVisibility: 'headers',
        isHeadersEditorEnabled: true,
        // The headers pane's key stays in this browser's storage across
        // reloads, as the query tabs do.
        shouldPersistHeaders: true
      })
    );
  }
})();
