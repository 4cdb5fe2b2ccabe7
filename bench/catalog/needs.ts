/**
 * Natural-language needs written against the nine-server catalog, each with the tool (or tools:
 * Playwright and Chrome DevTools both click, type and take screenshots) that meets it. The ranking
 * must put one of them in its top 3. Written as a person asks, not in the tools' own words.
 *
 * The first fifty were written before the ranking's synonym weight was chosen (0.35 found 48 of
 * them, 0.5 all fifty); the thirty after them were written after it was fixed, as a check that
 * it was not fitted to the first fifty.
 */

/** One need and the tools that meet it. */
export interface Need {
  need: string;
  /** Any of these, by the name the proxy serves. */
  tools: readonly string[];
}

export const NEEDS: readonly Need[] = [
  // filesystem
  { need: 'read the contents of a text file', tools: ['read_text_file'] },
  { need: "show me what's inside the src folder", tools: ['list_directory'] },
  { need: 'rename a file', tools: ['move_file'] },
  { need: 'find files whose name matches a glob pattern', tools: ['search_files'] },
  { need: 'replace a line in a file and show the diff', tools: ['edit_file'] },
  { need: 'how big is each file in a directory', tools: ['list_directory_with_sizes'] },
  { need: 'get file metadata like size and modification time', tools: ['get_file_info'] },
  { need: 'make a new folder', tools: ['create_directory'] },
  // memory
  { need: 'record a new person in the knowledge graph', tools: ['create_entities'] },
  { need: 'link two entities in the knowledge graph with a relation', tools: ['create_relations'] },
  { need: 'dump the entire knowledge graph', tools: ['read_graph'] },
  { need: 'forget an entity stored in memory', tools: ['delete_entities'] },
  // github
  { need: 'open an issue on GitHub', tools: ['github__create_issue'] },
  { need: 'list the open pull requests of a GitHub repository', tools: ['github__list_pull_requests'] },
  { need: 'merge a pull request', tools: ['github__merge_pull_request'] },
  { need: 'search GitHub code for a function name', tools: ['github__search_code'] },
  { need: 'create a branch in a GitHub repository', tools: ['github__create_branch'] },
  { need: 'which files did a pull request change', tools: ['github__get_pull_request_files'] },
  // gitlab
  { need: 'create a merge request in GitLab', tools: ['gitlab__create_merge_request'] },
  { need: 'push several files to a GitLab project in one commit', tools: ['gitlab__push_files'] },
  // slack
  { need: 'post a message to a Slack channel', tools: ['slack_post_message'] },
  { need: 'reply in a Slack thread', tools: ['slack_reply_to_thread'] },
  { need: 'add an emoji reaction to a Slack message', tools: ['slack_add_reaction'] },
  { need: 'read the recent messages of a slack channel', tools: ['slack_get_channel_history'] },
  { need: 'list the people in our Slack workspace', tools: ['slack_get_users'] },
  // notion
  { need: 'search Notion for a page by its title', tools: ['API-post-search'] },
  { need: 'create a new page in Notion', tools: ['API-post-page'] },
  { need: 'append blocks to a Notion page', tools: ['API-patch-block-children'] },
  { need: 'add a comment to a Notion page', tools: ['API-create-a-comment'] },
  { need: 'query a Notion database with a filter', tools: ['API-query-data-source'] },
  { need: 'which Notion bot user is this integration', tools: ['API-get-self'] },
  // browsers: Playwright's and Chrome DevTools' tools do the same things
  { need: 'open a URL in the browser', tools: ['browser_navigate', 'navigate_page'] },
  { need: 'take a screenshot of the page', tools: ['browser_take_screenshot', 'take_screenshot'] },
  { need: 'click the submit button', tools: ['browser_click', 'click'] },
  { need: 'fill in a login form', tools: ['browser_fill_form', 'fill_form'] },
  { need: 'press the Enter key', tools: ['browser_press_key', 'press_key'] },
  { need: 'switch to another browser tab', tools: ['browser_tabs', 'select_page'] },
  { need: 'get the console errors of the page', tools: ['browser_console_messages', 'list_console_messages'] },
  { need: 'list the network requests the page made', tools: ['browser_network_requests', 'list_network_requests'] },
  { need: 'upload a file through a file input', tools: ['browser_file_upload', 'upload_file'] },
  { need: 'wait until some text appears on the page', tools: ['browser_wait_for', 'wait_for'] },
  { need: 'record a performance trace of the page load', tools: ['performance_start_trace'] },
  { need: 'run a Lighthouse audit', tools: ['lighthouse_audit'] },
  { need: 'emulate a slow 3G network', tools: ['emulate'] },
  { need: 'take a heap snapshot to find a memory leak', tools: ['take_heapsnapshot'] },
  { need: 'get the CSS styles of an element', tools: ['get_css_styles'] },
  // everything
  { need: 'add two numbers', tools: ['get-sum'] },
  { need: 'echo a message back', tools: ['echo'] },
  { need: "show the server's environment variables", tools: ['get-env'] },
  { need: 'compress a file with gzip', tools: ['gzip-file-as-resource'] },
  // written after the weight was fixed
  { need: "show a tree of the project's folders", tools: ['directory_tree'] },
  { need: 'read several files at once', tools: ['read_multiple_files'] },
  { need: 'which directories am I allowed to access', tools: ['list_allowed_directories'] },
  { need: 'add a fact about an existing entity', tools: ['add_observations'] },
  { need: 'search my memory for anything about Bob', tools: ['search_nodes'] },
  { need: 'get the details of a GitHub issue', tools: ['github__get_issue'] },
  { need: 'leave a comment on a GitHub issue', tools: ['github__add_issue_comment'] },
  { need: 'approve a pull request with a review', tools: ['github__create_pull_request_review'] },
  { need: 'look for GitHub users by name', tools: ['github__search_users'] },
  { need: 'show commits on a branch', tools: ['github__list_commits'] },
  { need: 'list the comments on a pull request', tools: ['github__get_pull_request_comments'] },
  { need: 'get a file from a GitLab repository', tools: ['gitlab__get_file_contents'] },
  { need: 'list the Slack channels', tools: ['slack_list_channels'] },
  { need: 'see the replies to a Slack thread', tools: ['slack_get_thread_replies'] },
  { need: "get a Slack user's profile", tools: ['slack_get_user_profile'] },
  { need: 'update the properties of a Notion page', tools: ['API-patch-page'] },
  { need: 'read a Notion page as markdown', tools: ['API-retrieve-page-markdown'] },
  { need: 'move a Notion page under another parent', tools: ['API-move-page'] },
  { need: 'go back to the previous page in the browser', tools: ['browser_navigate_back', 'navigate_page'] },
  { need: 'hover over a menu', tools: ['browser_hover', 'hover'] },
  { need: 'drag an item onto another', tools: ['browser_drag', 'drag'] },
  { need: 'run some JavaScript in the page', tools: ['browser_evaluate', 'evaluate_script'] },
  { need: 'resize the browser window', tools: ['browser_resize', 'resize_page'] },
  { need: 'accept a confirm dialog', tools: ['browser_handle_dialog', 'handle_dialog'] },
  { need: 'get the accessibility tree of the page', tools: ['browser_snapshot', 'take_snapshot'] },
  { need: 'close the browser', tools: ['browser_close', 'close_page'] },
  { need: 'choose an option from a dropdown', tools: ['browser_select_option', 'fill'] },
  { need: 'stop the performance recording', tools: ['performance_stop_trace'] },
  { need: 'record a video of the page', tools: ['screencast_start'] },
  { need: 'return a tiny image', tools: ['get-tiny-image'] },
];

/** How often the ranking puts a right tool in its top `k` for each need, and the needs it misses. */
export function hitRate(search: (query: string, limit: number) => readonly { name: string }[], needs: readonly Need[] = NEEDS, k = 3): { hits: number; total: number; misses: { need: string; found: string[]; wanted: readonly string[] }[] } {
  const misses: { need: string; found: string[]; wanted: readonly string[] }[] = [];
  for (const need of needs) {
    const found = search(need.need, k).map((hit) => hit.name);
    if (!found.some((name) => need.tools.includes(name))) misses.push({ need: need.need, found, wanted: need.tools });
  }
  return { hits: needs.length - misses.length, total: needs.length, misses };
}
